package generator

import "testing"

func benchGen(b *testing.B, g Generator) {
	r := newRand(1)
	b.ReportAllocs()
	for b.Loop() {
		g.Next(r)
	}
}

func BenchmarkUniform(b *testing.B)   { benchGen(b, Uniform{Lo: 0, Hi: 999_999}) }
func BenchmarkZipfian(b *testing.B)   { benchGen(b, NewZipfian(0, 999_999, ZipfianConstant)) }
func BenchmarkScrambled(b *testing.B) { benchGen(b, NewScrambledZipfian(0, 999_999)) }
func BenchmarkLatest(b *testing.B) {
	c := NewAckCounter(1_000_000)
	benchGen(b, NewSkewedLatest(c, NewSkewedLatestZipfian(c.Last())))
}
func BenchmarkHotspot(b *testing.B)     { benchGen(b, NewHotspot(0, 999_999, 0.2, 0.8)) }
func BenchmarkExponential(b *testing.B) { benchGen(b, NewExponential(95, 857_142)) }
func BenchmarkSequential(b *testing.B)  { benchGen(b, NewSequential(0, 999_999)) }
func BenchmarkCounter(b *testing.B)     { benchGen(b, NewCounter(0)) }
func BenchmarkDiscrete(b *testing.B) {
	d, _ := NewDiscrete([]int64{0, 1, 2, 3, 4}, []float64{0.5, 0.3, 0.1, 0.05, 0.05})
	benchGen(b, d)
}
func BenchmarkAckCounter(b *testing.B) {
	c := NewAckCounter(0)
	b.ReportAllocs()
	for b.Loop() {
		c.Acknowledge(c.Next(nil))
	}
}
func BenchmarkFNVHash64(b *testing.B) {
	b.ReportAllocs()
	for i := int64(0); b.Loop(); i++ {
		FNVHash64(i)
	}
}
