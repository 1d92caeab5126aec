package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every size a workload's properties give is bounded before memory is
// given to it, in one line naming the property and the bound: the fields
// of a record and their length, their product, the shortest length, a
// scan's and a query's records, a histogram file's longest field.
func TestSizeBounds(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "hist.txt")
	if err := os.WriteFile(hist, []byte("BlockSize\t1000000000\n0\t1\n1\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	overflow := filepath.Join(t.TempDir(), "overflow.txt")
	if err := os.WriteFile(overflow, []byte("BlockSize\t1\n0\t9223372036854775807\n1\t9223372036854775807\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"fieldcount", "100000000"}, "property fieldcount: 100000000 is more than 10000 fields"},
		{[]string{"fieldlength", "10000000000"}, "property fieldlength: 10000000000 is more than 16777216 bytes"},
		{[]string{"minfieldlength", "9223372036854775807"}, "property minfieldlength: 9223372036854775807 is more than 16777216 bytes"},
		{[]string{"fieldcount", "10000", "fieldlength", "1000000"}, "property fieldlength: a record of 10000 fields of 1000000 bytes is 9.3 GiB: at most 16 MiB"},
		{[]string{"fieldcount", "10000"}, "property fieldcount: a record of 10000 fields of 100 bytes is 976.6 KiB"}, // within the bound: no error
		{[]string{"maxscanlength", "1000000000"}, "property maxscanlength: 1000000000 is more than 1000000 records"},
		{[]string{"minscanlength", "2000000"}, "property minscanlength: 2000000 is more than 1000000 records"},
		{[]string{"maxquerylength", "9223372036854775807"}, "property maxquerylength: 9223372036854775807 is more than 1000000 records"},
		{[]string{"fieldnameprefix", strings.Repeat("f", 2000)}, "property fieldnameprefix: 2000 bytes: at most 1024"},
		{[]string{"fieldlengthdistribution", "histogram", "fieldlengthhistogram", hist}, "property fieldlengthhistogram: " + hist + ": its longest field (2000000000 bytes) makes a record of 10 fields more than 16 MiB"},
		{[]string{"fieldlengthdistribution", "histogram", "fieldlengthhistogram", overflow}, "the counts add up to more than"},
		{[]string{"recordcount", "9223372036854775807"}, "property recordcount: 9223372036854775807 is more than 1000000000000000 records"},
		{[]string{"operationcount", "9223372036854775807"}, "property operationcount: 9223372036854775807 is more than 1000000000000000 operations"},
		{[]string{"insertstart", "9223372036854775807"}, "property insertstart: 9223372036854775807 is more than 100 records (recordcount)"},
	} {
		p := propsOf(t, "", "recordcount", "100")
		for i := 0; i+1 < len(c.kv); i += 2 {
			p.Set(c.kv[i], c.kv[i+1], "-p "+c.kv[i])
		}
		_, err := New(p, true)
		if strings.HasSuffix(c.want, "976.6 KiB") {
			if err != nil {
				t.Errorf("%v: %v, want it allowed", c.kv, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.60q: err = %v, want one line with %q", c.kv, err, c.want)
		}
	}
}

// What a thread's records may take: the written and read records, a
// batch, the longest scan's rows when the mix scans.
func TestThreadBytes(t *testing.T) {
	w, err := New(propsOf(t, "e", "fieldcount", "10", "fieldlength", "1000"), false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.ThreadBytes(50, true), int64(2+50+100)*10_000; got != want {
		t.Errorf("workload E, batches of 50: %d bytes a thread, want %d", got, want)
	}
	if got, want := w.ThreadBytes(50, false), int64(2+50)*10_000; got != want {
		t.Errorf("workload E's load, batches of 50: %d bytes a thread, want %d", got, want)
	}
	c, _ := New(propsOf(t, "c"), false)
	if got := c.ThreadBytes(1, true); got != 3*1000 {
		t.Errorf("workload C: %d bytes a thread, want 3,000", got)
	}
}

// An exponential distribution whose draws nearly all fall beyond the
// records is refused: each is drawn again, and with exponential.frac=1e300
// or exponential.percentile=1e-300 no key was ever drawn.
func TestExponentialDraws(t *testing.T) {
	for _, v := range []string{"1e300", "1.5", "0", "-1"} {
		if _, err := ParseConfig(propsOf(t, "a", "requestdistribution", "exponential", "exponential.frac", v)); err == nil || !strings.Contains(err.Error(), "above 0 and at most 1") {
			t.Errorf("exponential.frac=%s: %v", v, err)
		}
	}
	for _, v := range []string{"1e-300", "0.5"} {
		if _, err := ParseConfig(propsOf(t, "a", "requestdistribution", "exponential", "exponential.percentile", v)); err == nil || !strings.Contains(err.Error(), "want at least 1%") {
			t.Errorf("exponential.percentile=%s: %v", v, err)
		}
	}
	if _, err := ParseConfig(propsOf(t, "a", "requestdistribution", "exponential", "exponential.percentile", "1.2")); err != nil {
		t.Errorf("exponential.percentile=1.2: %v", err)
	}
}
