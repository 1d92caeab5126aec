package coordinator

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	restclient "k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// An API server answering more than maxKubeAnswer fails the request at
// the bound, in one line naming the server and the bound, and nothing
// logged; the answer read up to it (the server sends four times the
// bound, then stops).
func TestKubeAnswerBounded(t *testing.T) {
	defer func(m int64) { maxKubeAnswer = m }(maxKubeAnswer)
	maxKubeAnswer = 1 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for range 4 * maxKubeAnswer / int64(len(chunk)) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	var logged bytes.Buffer // client-go's log: nothing more than the error
	klog.LogToStderr(false)
	klog.SetOutput(&logged)
	defer klog.LogToStderr(true)
	c, err := newKubeClient(&restclient.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	err = c.core.Get().Namespace("default").Resource("pods").Do(quiet(context.Background())).Error()
	want := "the Kubernetes API server " + srv.URL + " answered more than 1 MiB: cut there"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %v, want one line with %q", err, want)
	}
	_, err = c.core.Get().Namespace("default").Resource("pods").Name("p").SubResource("log").DoRaw(quiet(context.Background()))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("log: error %v, want %q", err, want)
	}
	if logged.Len() > 0 {
		t.Errorf("client-go logged %q", logged.String())
	}
}
