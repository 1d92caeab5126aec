package sink

import (
	"math"
	"strconv"
	"strings"
)

// javaDouble formats f as Java's Double.toString does, which is what
// YCSB's text exporter prints: shortest round-trip digits, decimal notation
// with at least one fractional digit for 10^-3 <= |f| < 10^7, and
// "d.dddE±n" computerized scientific notation otherwise.
func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, 64) // e.g. 1.2345E+07
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// ordinal names a percentile as YCSB does: whole numbers with an English
// ordinal suffix (50th, 1st, 2nd, 3rd, 11th), others with Double.toString
// (99.9).
func ordinal(p float64) string {
	if p != math.Trunc(p) {
		return javaDouble(p)
	}
	n := int64(p)
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.FormatInt(n, 10) + suffix
}

// twoDecimals formats like Java's DecimalFormat("#.##") (half-even).
func twoDecimals(f float64) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	r := math.RoundToEven(f*100) / 100
	return strconv.FormatFloat(r, 'f', -1, 64)
}
