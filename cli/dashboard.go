package cli

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/experiment"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/sink"
)

// planBoard is a plan's live page (bench --dashboard): its runs by
// status, the next, an estimate of its end, the throughput of the runs so
// far; written to DIR/dashboard.html at the end.
type planBoard struct {
	board sink.Board
	srv   *http.Server
	dir   string
	start time.Time
	runs  []plan.Run
	// ended counts the runs this bench ended (done, failed, skipped);
	// before, those an earlier bench had done.
	ended, before int
}

// startPlanBoard listens on addr (loopback only: bench takes no token)
// and follows r's runs.
func startPlanBoard(addr string, pl *plan.Plan, dir string, r *experiment.Runner, stderr io.Writer) (*planBoard, error) {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("bench: --dashboard %s: a plan's page listens on a loopback address only (127.0.0.1:PORT; reach it from elsewhere through ssh -L)", addr)
		}
	}
	ln, err := sink.ListenBoard(addr, "", "--dashboard")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	pb := &planBoard{dir: dir, start: time.Now(), runs: pl.Runs()}
	if ix, err := plan.ReadIndex(dir); err == nil { // a plan resumed: what it found done
		for _, c := range ix.Runs {
			if c.Status == "done" {
				pb.before++
			}
		}
	}
	capacity := pl.SLO != nil && pl.SLO.Search != ""
	pb.board.Update(func(d *sink.BoardData) {
		d.Title = "servbench plan " + pl.Name
		d.Plan = &sink.BoardPlan{Total: len(pb.runs), Left: len(pb.runs) - pb.before, Done: pb.before}
		if !capacity && pb.before < len(pb.runs) {
			d.Plan.Running = pb.runs[pb.before].ID()
		}
	})
	prev := r.OnRun
	r.OnRun = func(ic plan.IndexRun) {
		if prev != nil {
			prev(ic)
		}
		pb.ran(ic, capacity)
	}
	r.Watch = func(name string, setup *engine.Setup) runner.Observer { return pb.board.Follow(name, setup.LiveEnv()) }
	pb.srv = pb.board.Serve(ln, "")
	fmt.Fprintf(stderr, "servbench: dashboard on http://%s/\n", ln.Addr())
	return pb, nil
}

// ran notes one run's end.
func (pb *planBoard) ran(ic plan.IndexRun, capacity bool) {
	pb.ended++
	var p99 float64 // its worst operation's, from its result (read once, as it ends)
	if ic.Status == "done" && ic.Result != "" {
		if d, err := result.ReadFile(filepath.Join(pb.dir, ic.Result)); err == nil {
			for _, op := range d.Ops {
				if op.Latency != nil {
					p99 = max(p99, op.Latency.Percentiles["99"])
				}
			}
		}
	}
	pb.board.Update(func(d *sink.BoardData) {
		p := d.Plan
		switch ic.Status {
		case "done":
			p.Done++
		case "failed":
			p.Failed++
		case "skipped":
			p.Skipped++
		}
		p.Left = max(0, p.Total-p.Done-p.Failed-p.Skipped)
		if len(p.Runs) < sink.MaxBoardRuns {
			p.Runs = append(p.Runs, sink.BoardPlanRun{ID: ic.ID, Status: ic.Status, Throughput: ic.Throughput, P99Us: p99})
		}
		p.Running = ""
		if next := pb.before + pb.ended; !capacity && next < len(pb.runs) {
			p.Running = pb.runs[next].ID()
		}
		if p.Left > 0 {
			per := time.Since(pb.start) / time.Duration(pb.ended)
			p.EndsAt = time.Now().Add(per * time.Duration(p.Left)).UTC().Format(time.RFC3339)
		} else {
			p.EndsAt = ""
		}
	})
}

// end shows the plan ended, waits a moment for a page watching to see it,
// stops serving and writes DIR/dashboard.html.
func (pb *planBoard) end(stderr io.Writer) {
	pb.board.Update(func(d *sink.BoardData) { d.Ended, d.Plan.Running, d.Plan.EndsAt = true, "", "" })
	pb.board.Linger()
	sink.Stop(pb.srv)
	if err := pb.board.WriteFrozen(filepath.Join(pb.dir, "dashboard.html")); err != nil {
		fmt.Fprintf(stderr, "servbench: the plan's dashboard: %s\n", oneLine(err))
	}
}
