//go:build unix && !darwin

package engine

// maxrssUnit: Linux and the BSDs give ru_maxrss in kilobytes.
const maxrssUnit = 1024
