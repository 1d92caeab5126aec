package coordinator

import (
	"net/http/httptest"
	"strconv"
	"testing"
)

// The coordinator forgets the file of a phase's properties once every
// client has asked for its clock (each has read them by then): once, and
// not before the last.
func TestClockHandlerForgetsTheProperties(t *testing.T) {
	calls := 0
	h := &clockHandler{n: 2, all: func() { calls++ }}
	ask := func(q string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/"+q, nil))
		if _, err := strconv.ParseInt(rec.Body.String(), 10, 64); err != nil {
			t.Errorf("%s answered %q, not a time", q, rec.Body.String())
		}
	}
	for _, q := range []string{"", "?client=0", "?client=0", "?client=0"} {
		ask(q)
	}
	if calls != 0 {
		t.Fatal("forgot the properties before client 1 asked")
	}
	ask("?client=1")
	ask("?client=1")
	if calls != 1 {
		t.Errorf("forgot the properties %d times, want once", calls)
	}
}
