package engine

import (
	"strings"
	"testing"
)

// client.cores is auto, all or a number of cores; anything else is
// refused naming it.
func TestClientCoresRead(t *testing.T) {
	for v, want := range map[string]int{"auto": coresAuto, "all": coresAll, "3": 3} {
		s, err := Check(specOf(t, CoresProperty, v))
		if err != nil || s.cores != want {
			t.Errorf("%s: %d (%v), want %d", v, s.cores, err, want)
		}
	}
	for _, v := range []string{"0", "-2", "half", "1.5"} {
		if _, err := Check(specOf(t, CoresProperty, v)); err == nil || !strings.Contains(err.Error(), CoresProperty) {
			t.Errorf("%s: %v", v, err)
		}
	}
}
