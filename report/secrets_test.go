package report

import (
	"testing"

	"github.com/servbench/servbench/props"
)

// A chart's labels and titles have the known secrets hidden; its markup
// is kept, even where a secret is an element's name.
func TestHideInText(t *testing.T) {
	var red props.Redactor
	red.Add("hunter1x")
	red.Add("text")
	in := `<svg><text class="xlabel"><title>hunter1x</title>on hunter1x, text</text></svg>`
	want := `<svg><text class="xlabel"><title>REDACTED</title>on REDACTED, REDACTED</text></svg>`
	if got := hideInText(in, &red); got != want {
		t.Errorf("hideInText:\n got %s\nwant %s", got, want)
	}
}
