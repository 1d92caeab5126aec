// Package output writes what one run shows: YCSB's text report (every
// measurementtype and measurement.interval YCSB has), the result document
// built from the runner's measurements, the status line, and HdrHistogram
// interval logs. Its observers are fed at interval ends, never per
// operation.
package output
