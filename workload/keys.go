package workload

import (
	"strconv"

	"github.com/servbench/servbench/generator"
)

// AppendKey appends YCSB's key for keynum to dst: "user", then keynum
// (FNV-hashed unless ordered) in decimal, left-padded with zeros to
// zeroPadding digits. It is CoreWorkload.buildKeyName without allocation.
func AppendKey(dst []byte, keynum int64, zeroPadding int, ordered bool) []byte {
	if !ordered {
		keynum = generator.FNVHash64(keynum)
	}
	dst = append(dst, "user"...)
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], keynum, 10)
	for i := len(d); i < zeroPadding; i++ {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// KeyName returns the key for keynum as a string.
func KeyName(keynum int64, zeroPadding int, ordered bool) string {
	return string(AppendKey(nil, keynum, zeroPadding, ordered))
}
