package generator

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// Histogram draws from an empirical histogram of block-sized buckets (YCSB's
// HistogramGenerator, used for fieldlengthdistribution=histogram). The file
// starts with "BlockSize\t<n>", then "<bucket>\t<count>" lines.
type Histogram struct {
	blockSize int64
	buckets   []int64
	area      int64
}

// maxHistogramFile bounds a histogram file: its buckets go to 2^24, about
// 200 MB of lines at most, but YCSB's are a few KB.
const maxHistogramFile = 16 << 20

// LoadHistogram reads a histogram file: a regular file of at most 16 MiB
// (a named pipe with no writer held the run's check without end, a device
// that never ends was read without one).
func LoadHistogram(path string) (*Histogram, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("histogram file %s: %w", path, err)
	}
	if m := st.Mode(); !m.IsRegular() {
		what := "not a regular file"
		switch {
		case m.IsDir():
			what = "a directory"
		case m&os.ModeNamedPipe != 0:
			what = "a named pipe, not a regular file"
		case m&os.ModeDevice != 0:
			what = "a device, not a regular file"
		}
		return nil, fmt.Errorf("histogram file %s: %s", path, what)
	}
	if st.Size() > maxHistogramFile {
		return nil, fmt.Errorf("histogram file %s: %d bytes, more than 16 MiB", path, st.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("histogram file %s: %w", path, err)
	}
	defer f.Close()
	return ParseHistogram(io.LimitReader(f, maxHistogramFile), path)
}

// ParseHistogram reads the histogram format; name appears in errors.
func ParseHistogram(r io.Reader, name string) (*Histogram, error) {
	sc := bufio.NewScanner(r)
	h := &Histogram{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		parts := strings.Fields(text)
		if len(parts) != 2 {
			return nil, fmt.Errorf("%s:%d: want two tab-separated columns", name, line)
		}
		if line == 1 {
			if parts[0] != "BlockSize" {
				return nil, fmt.Errorf("%s:1: first line must be \"BlockSize\\t<n>\"", name)
			}
			n, err := strconv.ParseInt(parts[1], 10, 64)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("%s:1: block size %q is not a positive whole number", name, parts[1])
			}
			h.blockSize = n
			continue
		}
		b, err1 := strconv.ParseInt(parts[0], 10, 64)
		c, err2 := strconv.ParseInt(parts[1], 10, 64)
		if err1 != nil || err2 != nil || b < 0 || c < 0 || b > 1<<24 {
			return nil, fmt.Errorf("%s:%d: want \"<bucket>\\t<count>\" with whole numbers", name, line)
		}
		for int64(len(h.buckets)) <= b {
			h.buckets = append(h.buckets, 0)
		}
		if c > math.MaxInt64-h.area {
			return nil, fmt.Errorf("%s:%d: the counts add up to more than %d", name, line, int64(math.MaxInt64))
		}
		h.buckets[b] = c
		h.area += c
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if h.blockSize == 0 || h.area == 0 {
		return nil, fmt.Errorf("%s: histogram has no block size or no counts", name)
	}
	return h, nil
}

// Max is the longest length Next returns, at most math.MaxInt64.
func (h *Histogram) Max() int64 {
	n := int64(len(h.buckets))
	if n > 0 && h.blockSize > math.MaxInt64/n {
		return math.MaxInt64
	}
	return n * h.blockSize
}

// Next returns (i+1)·blockSize for a bucket i drawn with its count's weight
// (YCSB's loop, including its "<= 0" boundary).
func (h *Histogram) Next(r *rand.Rand) int64 {
	number := r.Int64N(h.area)
	i := 0
	for ; i < len(h.buckets)-1; i++ {
		number -= h.buckets[i]
		if number <= 0 {
			return int64(i+1) * h.blockSize
		}
	}
	return int64(i) * h.blockSize
}
