// Package relay passes on what a process servbench runs for credentials
// (a kubeconfig's exec plugin, an AWS credential_process) says on stderr:
// bounded, its secrets hidden, its control characters escaped.
package relay

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
)

// Max is how much of a process's stderr is passed on.
const Max = 64 << 10

// Stderr passes a process's stderr on to w line by line, up to Max bytes:
// each line with what red and the redaction's rules hide hidden and its
// control characters escaped. End passes on a last line left without its
// newline and says how much more was dropped.
type Stderr struct {
	mu      sync.Mutex
	w       io.Writer
	red     *props.Redactor
	who     string
	left    int
	dropped int64
	line    []byte // what came since the last newline
}

// New returns a Stderr passing on to w what who (a name for the process
// in a line of servbench's own: "the kubeconfig's exec credential plugin
// sh") says, with the secrets its command line args and environment env
// carry (the values the redaction's rules find secret there) hidden too.
func New(w io.Writer, who string, args, env []string) *Stderr {
	var red props.Redactor
	red.Hidden(strings.Join(args, " "))
	for _, a := range args {
		red.Hidden(a)
	}
	for _, e := range env {
		red.Hidden(e)
	}
	return &Stderr{w: w, red: &red, who: who, left: Max}
}

func (s *Stderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	if len(p) > s.left {
		s.dropped += int64(len(p) - s.left)
		p = p[:s.left]
	}
	s.left -= len(p)
	for len(p) > 0 {
		line, rest, nl := bytes.Cut(p, []byte("\n"))
		s.line = append(s.line, line...)
		if !nl {
			break
		}
		s.say()
		p = rest
	}
	return n, nil
}

// say passes on the line held, and its newline.
func (s *Stderr) say() {
	io.WriteString(s.w, format.Printable(s.red.Redact(string(s.line)))+"\n")
	s.line = s.line[:0]
}

// End passes on what is left, and says how much more was dropped.
func (s *Stderr) End() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.line) > 0 {
		s.say()
	}
	if s.dropped > 0 {
		fmt.Fprintf(s.w, "servbench: %s said %s more on stderr, not shown\n", s.who, format.Bytes(s.dropped))
	}
}
