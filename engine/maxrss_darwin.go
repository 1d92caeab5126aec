package engine

// maxrssUnit: macOS gives ru_maxrss in bytes.
const maxrssUnit = 1
