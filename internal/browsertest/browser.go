// Package browsertest drives a headless Chromium for tests that open a
// servbench page (the report, the dashboard) in a real browser, through
// the DevTools protocol on a pipe: no port is opened. Without Chromium a
// test skips, unless SERVBENCH_REQUIRE_BROWSER is set.
package browsertest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// Browser drives a headless Chromium through the DevTools protocol on a
// pipe (--remote-debugging-pipe: commands in on fd 3, answers and events
// out on fd 4, each a JSON text ended by a NUL byte), so no port is opened.
type Browser struct {
	cmd     *exec.Cmd
	in      *os.File
	mu      sync.Mutex
	next    int
	waiting map[int]chan json.RawMessage
	events  chan event
	session string
}

type event struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// chromium finds the browser: $SERVBENCH_BROWSER, then Debian's chromium.
// Without it the test skips, unless SERVBENCH_REQUIRE_BROWSER is set (the
// test command sets it and installs chromium).
func chromium(t *testing.T) string {
	if testing.Short() {
		t.Skip("a browser is no part of the short suite (the whole suite runs it: scripts/integration)")
	}
	for _, p := range []string{os.Getenv("SERVBENCH_BROWSER"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if os.Getenv("SERVBENCH_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium (set SERVBENCH_BROWSER or install Debian's chromium)")
	}
	t.Skip("no chromium; set SERVBENCH_REQUIRE_BROWSER=1 to require it")
	return ""
}

// Start starts the browser; it is closed when the test ends.
func Start(t *testing.T, ctx context.Context) *Browser {
	path := chromium(t)
	cmdR, cmdW, err := os.Pipe() // we write commands; chromium reads fd 3
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // chromium writes fd 4; we read
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-extensions", "--disable-background-networking", "--disable-sync", "--metrics-recording-only",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	outW.Close()
	b := &Browser{cmd: cmd, in: cmdW, waiting: map[int]chan json.RawMessage{}, events: make(chan event, 1024)}
	go b.read(outR)
	t.Cleanup(func() {
		b.call("", "Browser.close", nil)
		cmdW.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
	})
	return b
}

func (b *Browser) read(f *os.File) {
	r := bufio.NewReader(f)
	for {
		msg, err := r.ReadBytes(0)
		if err != nil {
			close(b.events)
			return
		}
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
			event
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.waiting[m.ID]
			delete(b.waiting, m.ID)
			b.mu.Unlock()
			if ch != nil {
				if m.Error != nil {
					ch <- json.RawMessage(`{"__error":` + string(m.Error) + `}`)
				} else {
					ch <- m.Result
				}
			}
			continue
		}
		select {
		case b.events <- m.event:
		default:
		}
	}
}

// call sends a command (to the attached page when session is set) and
// waits for its answer.
func (b *Browser) call(session, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan json.RawMessage, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, _ := json.Marshal(msg)
	if _, err := b.in.Write(append(raw, 0)); err != nil {
		return nil, err
	}
	select {
	case res := <-ch:
		var e struct {
			Err json.RawMessage `json:"__error"`
		}
		if json.Unmarshal(res, &e) == nil && e.Err != nil {
			return nil, fmt.Errorf("%s: %s", method, e.Err)
		}
		return res, nil
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("%s: no answer in 60 s", method)
	}
}

// Page opens a page target and attaches to it.
func (b *Browser) Page(t *testing.T) {
	res, err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	var tg struct {
		TargetID string `json:"targetId"`
	}
	json.Unmarshal(res, &tg)
	res, err = b.call("", "Target.attachToTarget", map[string]any{"targetId": tg.TargetID, "flatten": true})
	if err != nil {
		t.Fatal(err)
	}
	var at struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(res, &at)
	b.session = at.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if _, err := b.call(b.session, m, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// Open navigates to url, waits for the load event and returns every
// error the page reported on the way: exceptions, console errors and log
// entries of level error (failed loads among them).
func (b *Browser) Open(t *testing.T, url string) []string {
	if _, err := b.call(b.session, "Page.navigate", map[string]any{"url": url}); err != nil {
		t.Fatal(err)
	}
	var errs []string
	timeout := time.After(60 * time.Second)
	for {
		select {
		case ev, ok := <-b.events:
			if !ok {
				t.Fatal("the browser went away")
			}
			if msg := pageError(ev); msg != "" {
				errs = append(errs, msg)
			}
			if ev.Method == "Page.loadEventFired" {
				// Let late errors arrive.
				deadline := time.After(500 * time.Millisecond)
				for {
					select {
					case ev := <-b.events:
						if msg := pageError(ev); msg != "" {
							errs = append(errs, msg)
						}
					case <-deadline:
						return errs
					}
				}
			}
		case <-timeout:
			t.Fatal("the page did not load in 60 s")
		}
	}
}

func pageError(ev event) string {
	switch ev.Method {
	case "Runtime.exceptionThrown":
		return "exception: " + string(ev.Params)
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
		}
		json.Unmarshal(ev.Params, &p)
		if p.Type == "error" || p.Type == "assert" {
			return "console: " + string(ev.Params)
		}
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level string `json:"level"`
				Text  string `json:"text"`
			} `json:"entry"`
		}
		json.Unmarshal(ev.Params, &p)
		if p.Entry.Level == "error" {
			return "log: " + p.Entry.Text
		}
	}
	return ""
}

// Eval runs a JavaScript expression in the page and decodes its value.
func (b *Browser) Eval(t *testing.T, expr string, v any) {
	res, err := b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception json.RawMessage `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Exception != nil {
		t.Fatalf("eval %s: %v %s", expr, err, r.Exception)
	}
	if err := json.Unmarshal(r.Result.Value, v); err != nil {
		t.Fatalf("eval %s: %v (%s)", expr, err, r.Result.Value)
	}
}

// Screenshot captures the page as PNG.
func (b *Browser) Screenshot(t *testing.T) []byte {
	res, err := b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Data []byte `json:"data"` // base64 in JSON: decoded by encoding/json
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	return r.Data
}

// Width sets the page's viewport width (CSS pixels; height 900).
func (b *Browser) Width(t *testing.T, w int) {
	if _, err := b.call(b.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": w, "height": 900, "deviceScaleFactor": 1, "mobile": false}); err != nil {
		t.Fatal(err)
	}
}
