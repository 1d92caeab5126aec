package wire

import (
	"fmt"
	"io"
	"net/http"

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
type AnswerError struct{ Max int64 }

func (e *AnswerError) Error() string {
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
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, &AnswerError{b.max}
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return 0, &AnswerError{b.max}
	}
	return n, err
}

// BoundResponse bounds r's body at max (BoundBody); an answer whose
// Content-Length says more fails at once, its body closed.
func BoundResponse(r *http.Response, max int64) error {
	if r == nil || r.Body == nil {
		return nil
	}
	if r.ContentLength > max {
		r.Body.Close()
		r.Body = http.NoBody
		return &AnswerError{max}
	}
	r.Body = BoundBody(r.Body, max)
	return nil
}

// BoundTransport is an http.RoundTripper whose answers are bounded at
// max (BoundResponse).
type BoundTransport struct {
	http.RoundTripper
	Max int64
}

func (t BoundTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.RoundTripper.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	if err := BoundResponse(resp, t.Max); err != nil {
		return nil, err
	}
	return resp, nil
}
