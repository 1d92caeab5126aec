package wire

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/servbench/servbench/internal/format"
)

// MaxHTTPAnswer bounds an HTTP server's answer to one request (DynamoDB's,
// CouchDB's): four times the largest a request of a run can ask for
// (DynamoDB answers at most 16 MB a request, its items at most 400 KB;
// a record is at most 16 MiB, a CouchDB page of a scan is cut where its
// records pass 16 MiB). A driver reads an answer whole into memory: an
// endless one filled it until the process died, the results unwritten.
const MaxHTTPAnswer = 64 << 20

// AnswerError is an HTTP answer cut at its bound: the request fails with
// it, counted as a server error (ERROR); the run goes on.
type AnswerError struct {
	Max      int64
	InFlight bool   // the answers read at once passed their budget
	From     string // who answered, when it is no run's server (BoundResponseFrom)
}

func (e *AnswerError) Error() string {
	if e.InFlight {
		return fmt.Sprintf("the server's answers being read at once hold more than %s, what this machine's memory can take decoded: this one is cut", format.Bytes(e.Max))
	}
	if e.From != "" {
		return fmt.Sprintf("%s answered more than %s: cut there", e.From, format.Bytes(e.Max))
	}
	return fmt.Sprintf("the server's answer is longer than %s, more than any request of a run asks for: cut there", format.Bytes(e.Max))
}

// BoundBody is body ending in an *AnswerError past max bytes (from the
// Content-Length given, before any is read, when it says more).
func BoundBody(body io.ReadCloser, max int64) io.ReadCloser {
	return &boundedBody{ReadCloser: body, left: max, max: max}
}

type boundedBody struct {
	io.ReadCloser
	left, max int64
	from      string        // AnswerError.From
	budget    *AnswerBudget // nil: none
	taken     int64         // what this body took of budget
	once      sync.Once
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, &AnswerError{Max: b.max, From: b.from}
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return 0, &AnswerError{Max: b.max, From: b.from}
	}
	if b.budget != nil && n > 0 {
		b.taken += int64(n)
		if used := b.budget.used.Add(int64(n)); used > b.budget.max {
			return 0, &AnswerError{Max: b.budget.max, InFlight: true}
		}
	}
	return n, err
}

func (b *boundedBody) Close() error {
	b.once.Do(func() {
		if b.budget != nil {
			b.budget.used.Add(-b.taken)
		}
	})
	return b.ReadCloser.Close()
}

// AnswerBudget bounds the bytes of the answers every connection of a
// binding reads at once: a driver decodes an answer into several times
// its bytes (the AWS SDK about seven), so that threads each within the
// answer's bound could together take more memory than there is (24
// threads of 66 MB items ran the process out of it). An answer whose read
// passes the budget fails as a server error, the run going on.
type AnswerBudget struct {
	max  int64
	used atomic.Int64
}

// NewAnswerBudget is a budget of memory / answerMemoryFactor (memory: what
// the process may take, db.Options.Memory), nil (none) when memory is
// not known.
func NewAnswerBudget(memory int64) *AnswerBudget {
	if memory <= 0 {
		return nil
	}
	return &AnswerBudget{max: max(memory/answerMemoryFactor, 16<<20)}
}

// answerMemoryFactor is what a decoded answer takes, in times its bytes,
// with room: the AWS SDK's GetItem took about seven (463 MB for 66 MB).
const answerMemoryFactor = 10

// BoundResponse bounds r's body at max (BoundBody), and, with a budget,
// the bytes of every answer read at once; an answer whose Content-Length
// says more than max fails at once, its body closed.
func BoundResponse(r *http.Response, max int64, budget ...*AnswerBudget) error {
	var b *AnswerBudget
	if len(budget) > 0 {
		b = budget[0]
	}
	return BoundResponseFrom(r, max, "", b)
}

// BoundResponseFrom is BoundResponse whose cut names from, who answered
// (AnswerError.From): an answer that is none of a run's.
func BoundResponseFrom(r *http.Response, max int64, from string, budget *AnswerBudget) error {
	if r == nil || r.Body == nil {
		return nil
	}
	if r.ContentLength > max {
		r.Body.Close()
		r.Body = http.NoBody
		return &AnswerError{Max: max, From: from}
	}
	r.Body = &boundedBody{ReadCloser: r.Body, left: max, max: max, from: from, budget: budget}
	return nil
}

// BoundTransport is an http.RoundTripper whose answers are bounded at
// max (BoundResponseFrom), and together at Budget (nil: not).
type BoundTransport struct {
	http.RoundTripper
	Max    int64
	Budget *AnswerBudget
	From   string // AnswerError.From
}

func (t BoundTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.RoundTripper.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	if err := BoundResponseFrom(resp, t.Max, t.From, t.Budget); err != nil {
		return nil, err
	}
	return resp, nil
}
