//go:build !unix

package engine

func addressSpaceLeft() int64 { return 0 }
