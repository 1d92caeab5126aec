package generator

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestFNVHash64Vectors(t *testing.T) {
	// YCSB's Utils.fnvhash64 results behind the key test vectors.
	for in, want := range map[int64]int64{
		0:     6284781860667377211,
		1:     8517097267634966620,
		2:     1820151046732198393,
		12345: 1792800413050876852,
	} {
		if got := FNVHash64(in); got != want {
			t.Errorf("FNVHash64(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestZipfianConstants(t *testing.T) {
	z := NewZipfianZeta(0, ScrambledItemCount, ZipfianConstant, ScrambledZetan)
	if got := z.zeta2theta; math.Abs(got-1.5034777750283594) > 1e-15 {
		t.Errorf("zeta(2, 0.99) = %v, want 1.5034777750283594", got)
	}
	if got := z.Eta(); math.Abs(got-0.21220003380967406) > 1e-12 {
		t.Errorf("eta of the scrambled zipfian = %v, want 0.21220003380967406", got)
	}
	if z.Items() != ScrambledItemCount+1 {
		t.Errorf("items = %d, want 1e10+1 (the bound is inclusive)", z.Items())
	}
}

// zipfianPMF is the exact distribution of the Gray et al. algorithm for n
// items: rank 0 when U·ζ < 1, rank 1 when U·ζ < 1+2^-θ, otherwise
// floor(n·(ηU-η+1)^α). The third branch is increasing in U, so rank k
// takes the U interval [g⁻¹(k), g⁻¹(k+1)) with g⁻¹(y) = ((y/n)^(1/α)-1)/η+1.
func zipfianPMF(z *Zipfian, n int64) func(int64) float64 {
	u1 := (1 + math.Pow(0.5, z.theta)) / z.zetan
	inv := func(y float64) float64 {
		return (math.Pow(y/float64(n), 1/z.alpha)-1)/z.eta + 1
	}
	clamp := func(u float64) float64 { return math.Min(1, math.Max(u1, u)) }
	return func(k int64) float64 {
		p := clamp(inv(float64(k+1))) - clamp(inv(float64(k)))
		switch k {
		case 0:
			p += 1 / z.zetan
		case 1:
			p += math.Pow(0.5, z.theta) / z.zetan
		}
		return p
	}
}

func TestZipfianFit(t *testing.T) {
	const n = 200
	z := NewZipfian(0, n-1, ZipfianConstant)
	r := newRand(1)
	pmf := zipfianPMF(z, n)
	checkFit(t, "zipfian", 200_000, func() int64 { return z.Next(r) }, pmf, 0, n-1)

	// The head is exact Zipf and the whole stays close to Zipf's law
	// P(k) = 1/((k+1)^θ ζ(n,θ)).
	zeta := Zeta(0, n, ZipfianConstant, 0)
	var tv float64
	for k := int64(0); k < n; k++ {
		exact := 1 / (math.Pow(float64(k+1), ZipfianConstant) * zeta)
		if k < 2 && math.Abs(pmf(k)-exact) > 1e-12 {
			t.Errorf("P(rank %d) = %v, want Zipf's %v", k, pmf(k), exact)
		}
		tv += math.Abs(pmf(k)-exact) / 2
	}
	if tv > 0.05 {
		t.Errorf("total variation from Zipf's law = %.3f, want < 0.05", tv)
	}
}

func TestZipfianOffsetAndGrowth(t *testing.T) {
	z := NewZipfian(100, 149, ZipfianConstant)
	r := newRand(2)
	pmf := zipfianPMF(z, 50)
	checkFit(t, "zipfian[100,149]", 100_000, func() int64 { return z.Next(r) }, func(v int64) float64 { return pmf(v - 100) }, 100, 149)

	// Growing the item count extends zeta incrementally to the same sum.
	g := NewZipfian(0, 9, ZipfianConstant)
	g.NextN(r, 1000)
	if want := Zeta(0, 1000, ZipfianConstant, 0); math.Abs(g.Zetan()-want) > 1e-9 {
		t.Errorf("incremental zeta = %v, want %v", g.Zetan(), want)
	}
}

func TestScrambledZipfianHead(t *testing.T) {
	const n = 10_000
	s := NewScrambledZipfian(0, n-1)
	r := newRand(3)
	const draws = 400_000
	counts := map[int64]int{}
	for i := 0; i < draws; i++ {
		v := s.Next(r)
		if v < 0 || v >= n {
			t.Fatalf("drew %d outside [0, %d)", v, n)
		}
		counts[v]++
	}
	// Rank 0 lands on fnv(0) mod n with probability 1/zetan plus about
	// 1/n of folded-in mass; rank 1 on fnv(1) mod n with 2^-θ/zetan.
	for rank, p := range map[int64]float64{0: 1 / ScrambledZetan, 1: math.Pow(0.5, ZipfianConstant) / ScrambledZetan} {
		v := FNVHash64(rank) % n
		want := (p + 1.0/n) * draws
		sd := math.Sqrt(want)
		if got := float64(counts[v]); math.Abs(got-want) > 5*sd+0.002*draws {
			t.Errorf("rank %d (item %d): %v draws, want about %.0f", rank, v, got, want)
		}
	}
	if len(counts) < n/2 {
		t.Errorf("only %d distinct items of %d: not scattered", len(counts), n)
	}
}

type fixedLimit int64

func (f fixedLimit) Last() int64 { return int64(f) }

func TestSkewedLatestFit(t *testing.T) {
	const last = 300
	z := NewSkewedLatestZipfian(last)
	g := NewSkewedLatest(fixedLimit(last), z.Clone())
	pmf := zipfianPMF(z, last)
	r := newRand(4)
	// last - value follows the zipfian over `last` items; 0 never appears.
	checkFit(t, "latest", 200_000, func() int64 { return g.Next(r) }, func(v int64) float64 {
		if v == 0 {
			return 0
		}
		return pmf(last - v)
	}, 0, last)
}

func TestUniformFit(t *testing.T) {
	u := Uniform{Lo: 5, Hi: 104}
	r := newRand(5)
	checkFit(t, "uniform", 100_000, func() int64 { return u.Next(r) }, func(int64) float64 { return 0.01 }, 5, 104)
}

func TestHotspotFit(t *testing.T) {
	h := NewHotspot(0, 99, 0.2, 0.8)
	r := newRand(6)
	checkFit(t, "hotspot", 100_000, func() int64 { return h.Next(r) }, func(v int64) float64 {
		if v < 20 {
			return 0.8 / 20
		}
		return 0.2 / 80
	}, 0, 99)
	// YCSB's guards: fractions outside [0,1] become 0, bounds are swapped.
	if g := NewHotspot(10, 0, 2, -1); g.lo != 0 || g.hot != 0 || g.cold != 11 {
		t.Errorf("guards: %+v", g)
	}
}

func TestExponentialFit(t *testing.T) {
	e := NewExponential(95, 100)
	if math.Abs(e.Gamma()-(-math.Log(0.05)/100)) > 1e-15 {
		t.Fatalf("gamma = %v", e.Gamma())
	}
	r := newRand(7)
	g := e.Gamma()
	// P(X = k) = e^{-γk} - e^{-γ(k+1)}; values past 2000 are pooled.
	checkFit(t, "exponential", 200_000, func() int64 { return min(e.Next(r), 2000) }, func(k int64) float64 {
		if k == 2000 {
			return math.Exp(-g * 2000)
		}
		return math.Exp(-g*float64(k)) - math.Exp(-g*float64(k+1))
	}, 0, 2000)
}

func TestDiscreteFit(t *testing.T) {
	d, err := NewDiscrete([]int64{1, 2, 3, 4}, []float64{0.5, 0, 0.3, 0.4})
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(8)
	w := map[int64]float64{1: 0.5 / 1.2, 2: 0, 3: 0.3 / 1.2, 4: 0.4 / 1.2}
	checkFit(t, "discrete", 100_000, func() int64 { return d.Next(r) }, func(v int64) float64 { return w[v] }, 1, 4)
	if _, err := NewDiscrete([]int64{1}, []float64{0}); err == nil {
		t.Error("all-zero weights accepted")
	}
}

func TestHistogramFit(t *testing.T) {
	h, err := ParseHistogram(strings.NewReader("BlockSize\t10\n0\t100\n1\t300\n2\t0\n3\t600\n"), "hist")
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(9)
	// YCSB's loop gives bucket 0 one extra unit (number <= 0) and returns
	// i·blockSize, not (i+1)·blockSize, for the last bucket.
	// Buckets 0..3 hold 100, 300, 0, 600 of 1000: values 10, 20, (30), 30.
	want := map[int64]float64{10: 101.0 / 1000, 20: 300.0 / 1000, 30: 599.0 / 1000}
	checkFit(t, "histogram", 100_000, func() int64 { return h.Next(r) }, func(v int64) float64 { return want[v] }, 0, 40)
	for _, bad := range []string{"", "Size\t10\n0\t1\n", "BlockSize\tx\n", "BlockSize\t10\n0\n", "BlockSize\t10\n"} {
		if _, err := ParseHistogram(strings.NewReader(bad), "bad"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestSequentialWraps(t *testing.T) {
	s := NewSequential(3, 5)
	var got []int64
	for i := 0; i < 7; i++ {
		got = append(got, s.Next(nil))
	}
	want := []int64{3, 4, 5, 3, 4, 5, 3}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sequence %v, want %v", got, want)
		}
	}
}

func TestCounter(t *testing.T) {
	c := NewCounter(10)
	if c.Last() != 9 {
		t.Errorf("Last before first = %d, want 9", c.Last())
	}
	var wg sync.WaitGroup
	seen := make([]int32, 4000)
	var mu sync.Mutex
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				v := c.Next(nil)
				mu.Lock()
				seen[v-10]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("value %d handed out %d times", i+10, n)
		}
	}
	if c.Last() != 4009 {
		t.Errorf("Last = %d, want 4009", c.Last())
	}
}

func TestAckCounter(t *testing.T) {
	c := NewAckCounter(100)
	if c.Last() != 99 {
		t.Fatalf("Last = %d, want 99", c.Last())
	}
	a, b, d := c.Next(nil), c.Next(nil), c.Next(nil) // 100, 101, 102
	if err := c.Acknowledge(b); err != nil {
		t.Fatal(err)
	}
	if c.Last() != 99 {
		t.Errorf("Last = %d after acknowledging 101 only, want 99 (100 still in flight)", c.Last())
	}
	c.Acknowledge(a)
	if c.Last() != 101 {
		t.Errorf("Last = %d, want 101", c.Last())
	}
	c.Acknowledge(d)
	if c.Last() != 102 {
		t.Errorf("Last = %d, want 102", c.Last())
	}

	// Concurrent acknowledgements in any order end contiguous.
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000; i++ {
				if err := c.Acknowledge(c.Next(nil)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	c.Acknowledge(c.Next(nil)) // a last one, so the final sweep runs
	if c.Last() != 102+40_001 {
		t.Errorf("Last = %d, want %d", c.Last(), 102+40_001)
	}

	// A slot acknowledged twice before the window moves on is an error.
	w := NewAckCounter(0)
	w.Next(nil)
	w.Acknowledge(AckWindow + 5) // occupies slot 5 out of order
	if err := w.Acknowledge(5); !errors.Is(err, ErrAckWindowFull) {
		t.Errorf("err = %v, want ErrAckWindowFull", err)
	}
}

// TestZipfianPow: the fast x^α agrees with math.Pow to a few units in the
// last place over the x a draw uses, for YCSB's θ (over its 10^10 scrambled
// items) and others (over 10^6 items), and a draw lands on math.Pow's rank
// but for a handful in a million.
func TestZipfianPow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, theta := range []float64{ZipfianConstant, 0.5, 0.8, 0.75, 0.9, 0.95} {
		z := NewZipfian(0, 999_999, theta)
		if theta == ZipfianConstant {
			z = NewZipfianZeta(0, ScrambledItemCount-1, theta, ScrambledZetan)
		}
		n := float64(z.items)
		var worst float64
		moved := 0
		for i := 0; i < 1_000_000; i++ {
			u := r.Float64()
			x := z.eta*u - z.eta + 1
			want, got := math.Pow(x, z.alpha), z.pow(x)
			if want > 0 {
				worst = max(worst, math.Abs(got-want)/want)
			}
			if int64(n*got) != int64(n*want) {
				moved++
			}
		}
		t.Logf("θ=%v: relative error up to %.2g, %d of 10^6 draws on another rank", theta, worst, moved)
		if worst > 4e-15 || moved > 2 {
			t.Errorf("θ=%v (α=%v, whole %d): relative error up to %.2g, %d draws of 10^6 on another rank", theta, z.alpha, z.whole, worst, moved)
		}
	}
}

// A histogram file is a regular file of at most 16 MiB: a named pipe with
// no writer (whose open never returned) and a file over the bound are
// refused before anything is read.
func TestHistogramFileBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	done := make(chan error, 1)
	go func() { _, err := LoadHistogram(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "a named pipe") {
			t.Errorf("a named pipe: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a named pipe: no answer within 5 s")
	}
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(17 << 20) // sparse: no disk taken
	f.Close()
	if _, err := LoadHistogram(big); err == nil || !strings.Contains(err.Error(), "more than 16 MiB") {
		t.Errorf("a file over the bound: %v", err)
	}
}
