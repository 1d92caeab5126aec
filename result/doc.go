// Package result is servbench's result document: the JSON of one run (one
// load or run phase of one client) or of several clients merged, its
// schema, reading, writing, merging and why a run stopped.
//
// It is the bottom layer: it imports nothing of servbench's, so any
// program can read and write result files without linking a runner or a
// database driver. Histograms are HdrHistogram's standard encoding (base64
// of the compressed V2 form), so results merge exactly and HdrHistogram's
// own tools read them. FormatVersion changes whenever a field changes
// meaning or is removed; Decode reads every earlier version.
package result
