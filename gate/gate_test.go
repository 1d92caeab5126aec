package gate

import (
	"math"
	"strings"
	"testing"

	"github.com/servbench/servbench/history"
)

func entries(tput []float64, p99 []float64) []history.Entry {
	es := make([]history.Entry, len(tput))
	for i := range tput {
		es[i] = history.Entry{Throughput: tput[i], Figures: map[string]float64{}}
		if i < len(p99) {
			es[i].Figures["READ p99"] = p99[i]
		}
	}
	return es
}

func verdict(t *testing.T, vs []Verdict, fig string) Verdict {
	t.Helper()
	for _, v := range vs {
		if v.Figure == fig {
			return v
		}
	}
	t.Fatalf("no verdict on %s: %+v", fig, vs)
	return Verdict{}
}

func TestJudge(t *testing.T) {
	base := entries([]float64{1000, 1010, 990, 1005}, []float64{100, 104, 98, 101})
	for _, c := range []struct {
		name      string
		news      []history.Entry
		fig       string
		regressed bool
		how       string
	}{
		{"a run like the baseline", entries([]float64{1002}, []float64{101}), "throughput", false, "prediction interval of 4"},
		{"throughput halved", entries([]float64{500}, []float64{101}), "throughput", true, "prediction"},
		{"faster is no regression", entries([]float64{2000}, []float64{50}), "throughput", false, ""},
		{"p99 doubled", entries([]float64{1000}, []float64{200}), "READ p99", true, ""},
		{"p99 halved", entries([]float64{1000}, []float64{50}), "READ p99", false, ""},
		{"repetitions 8% lower", entries([]float64{920, 921, 919}, nil), "throughput", true, "Welch over 4 and 3"},
		// Lower by more than the threshold, but within the noise of a
		// baseline that spreads widely.
		{"within the noise", entries([]float64{900, 1100, 700}, nil), "throughput", false, "Welch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := verdict(t, Judge(c.news, base, Defaults), c.fig)
			if v.Regressed != c.regressed || !strings.Contains(v.Note, c.how) {
				t.Errorf("%+v", v)
			}
		})
	}
	// Noisy baseline: the same drop is within its noise.
	noisy := entries([]float64{600, 1400, 1000}, nil)
	if v := verdict(t, Judge(entries([]float64{900}, nil), noisy, Defaults), "throughput"); v.Regressed || v.Noise < 0.1 {
		t.Errorf("a noisy baseline: %+v", v)
	}
	// One baseline run: the threshold alone.
	one := entries([]float64{1000}, nil)
	if v := verdict(t, Judge(entries([]float64{940}, nil), one, Defaults), "throughput"); !v.Regressed || !strings.Contains(v.Note, "threshold alone") {
		t.Errorf("one baseline run: %+v", v)
	}
	// A figure the baseline lacks is said missing.
	if v := verdict(t, Judge(entries([]float64{1000}, []float64{1}), one, Defaults), "READ p99"); !v.Missing || v.Regressed {
		t.Errorf("missing: %+v", v)
	}
}

func TestParseThreshold(t *testing.T) {
	for _, c := range []struct {
		k, v  string
		want  float64
		isNil bool
		err   string
	}{
		{"gate.throughput", "5", 0.05, false, ""},
		{"gate.p99.9", "20%", 0.2, false, ""},
		{"gate.p99", "off", 0, true, ""},
		{"gate.p100", "5", 0, false, "unknown gate figure"},
		{"gate.latency", "5", 0, false, "unknown gate figure"},
		{"gate.p99", "-1", 0, false, "want a percentage"},
		{"gate.p99", "NaN", 0, false, "want a percentage"},
	} {
		th, err := ParseThreshold(c.k, c.v)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s=%s: %v", c.k, c.v, err)
			}
		case err != nil || (th == nil) != c.isNil || th != nil && th.Worse != c.want:
			t.Errorf("%s=%s: %+v %v", c.k, c.v, th, err)
		}
	}
}

// A latency from a baseline of 0 is worse; a throughput from 0 is not. The
// failed operations are judged in percentage points. An operation's name
// may hold a space; its response time is not its service time.
func TestJudgeEdges(t *testing.T) {
	zero := entries([]float64{0, 0}, []float64{0, 0})
	vs := Judge(entries([]float64{5}, []float64{5000}), zero, Defaults)
	if v := verdict(t, vs, "READ p99"); !v.Regressed {
		t.Errorf("p99 from 0 to 5000: %+v", v)
	}
	if v := verdict(t, vs, "throughput"); v.Regressed {
		t.Errorf("throughput from 0 to 5: %+v", v)
	}
	ok := []history.Entry{{Throughput: 1, Operations: 1000, OK: 1000}, {Throughput: 1, Operations: 1000, OK: 999}}
	if v := verdict(t, Judge([]history.Entry{{Throughput: 1, Operations: 1000, OK: 970}}, ok, Defaults), Failed); !v.Regressed {
		t.Errorf("3%% failed from 0.05%%: %+v", v)
	}
	if v := verdict(t, Judge([]history.Entry{{Throughput: 1, Operations: 1000, OK: 995}}, ok, Defaults), Failed); v.Regressed {
		t.Errorf("0.5%% failed from 0.05%%: %+v", v)
	}
	spaced := func(p99, resp float64) []history.Entry {
		return []history.Entry{{Throughput: 1, Figures: map[string]float64{"TOP SCORES p99": p99, "TOP SCORES response p99": resp}}}
	}
	vs = Judge(spaced(300, 100), append(spaced(100, 100), spaced(100, 100)...), Defaults)
	if v := verdict(t, vs, "TOP SCORES p99"); !v.Regressed {
		t.Errorf("an operation named with a space: %+v", vs)
	}
	for _, v := range vs {
		if strings.Contains(v.Figure, "response") {
			t.Errorf("response time judged as service time: %+v", v)
		}
	}
}

// One new run against one baseline run: with their intervals, the noise
// is each run's own (batch means), and a change within it passes where
// the threshold alone would fail it; a change beyond it fails.
func TestJudgeIntervals(t *testing.T) {
	base := entries([]float64{1000}, nil)
	iv := func(e history.Entry, fig string) []float64 {
		xs := make([]float64, 100)
		for i := range xs { // slow ±15% swings (a minute long): not averaged away within a batch
			xs[i] = e.Throughput * (1 + 0.15*math.Sin(2*math.Pi*float64(i)/60))
		}
		return xs
	}
	if v := verdict(t, JudgeIntervals(entries([]float64{940}, nil), base, Defaults, iv), "throughput"); v.Regressed || v.Noise < 0.06 || !strings.Contains(v.Note, "batch means") {
		t.Errorf("6%% lower within the runs' swings: %+v", v)
	}
	if v := verdict(t, JudgeIntervals(entries([]float64{600}, nil), base, Defaults, iv), "throughput"); !v.Regressed {
		t.Errorf("40%% lower: %+v", v)
	}
	short := func(history.Entry, string) []float64 { return []float64{1, 2, 3} }
	if v := verdict(t, JudgeIntervals(entries([]float64{940}, nil), base, Defaults, short), "throughput"); !v.Regressed || !strings.Contains(v.Note, "threshold alone") {
		t.Errorf("too few intervals: %+v", v)
	}
}
