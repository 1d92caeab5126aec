package coordinator

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
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

// standInAPI is a Kubernetes API server of a test: it answers each
// request with answer's status and body, and notes "METHOD path".
func standInAPI(t *testing.T, answer func(r *http.Request) (int, string)) (*kube, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		code, body := answer(r)
		if code < 0 {
			if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
				c.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := newKubeClient(&restclient.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	k := &kube{client: c, namespace: "default", name: "bench", poll: 10 * time.Millisecond, credDone: func() {}}
	return k, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// A Secret of the run's name that exists already (the user's, another
// run's) is not the run's: its create is refused, and the cleanup leaves
// it. The run's own Secret is deleted by its UID. One whose create went
// unanswered (sent, the answer lost: made or not) is read first and
// deleted only when it carries the run's annotation: the user's of that
// name was deleted when the answer to the refused create was lost.
func TestKubeDeletesOnlyItsOwnSecret(t *testing.T) {
	secret := func(uid, run string) string {
		return `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"bench","namespace":"default","uid":"` + uid + `","annotations":{"servbench.io/run":"` + run + `"}}}`
	}
	for _, c := range []struct {
		name, post, get string // the create's answer and the read's ("" for a 404)
		deleted         bool
		said            string
	}{
		{"exists", "exists", "", false, ""},
		{"made", secret("u-made", "run1"), "", true, ""},
		{"unanswered, made", "", secret("u-late", "run1"), true, ""},
		{"unanswered, the user's", "", secret("u-users", "theirs"), false, "not this run's"},
		{"unanswered, none", "", "", false, ""},
		{"a gateway's 504, made", "504", secret("u-504", "run1"), true, ""},
	} {
		var deleteBody string
		var mu sync.Mutex
		k, seen := standInAPI(t, func(r *http.Request) (int, string) {
			switch {
			case r.Method == http.MethodPost && c.post == "exists":
				return http.StatusConflict, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"AlreadyExists","code":409,"message":"secrets \"bench\" already exists"}`
			case r.Method == http.MethodPost && c.post == "":
				return -1, "" // the connection closed
			case r.Method == http.MethodPost && c.post == "504":
				return http.StatusGatewayTimeout, "<html>504 Gateway Time-out</html>"
			case r.Method == http.MethodPost:
				return http.StatusCreated, c.post
			case r.Method == http.MethodGet && c.get == "":
				return http.StatusNotFound, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`
			case r.Method == http.MethodGet:
				return http.StatusOK, c.get
			case r.Method == http.MethodDelete:
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				deleteBody = string(b)
				mu.Unlock()
			}
			return http.StatusOK, `{"kind":"Status","apiVersion":"v1","status":"Success"}`
		})
		var said bytes.Buffer
		j := &job{id: "run1", stderr: &said, mu: &sync.Mutex{}, token: "t", url: "https://127.0.0.1:1"}
		err := k.prepare(context.Background(), j)
		if (c.name == "made") != (err == nil) {
			t.Fatalf("%s: prepare: %v", c.name, err)
		}
		k.cleanup(context.Background(), j)
		deleted := slices.Contains(seen(), "DELETE /api/v1/namespaces/default/secrets/bench")
		mu.Lock()
		body := deleteBody
		mu.Unlock()
		if deleted != c.deleted || deleted && !strings.Contains(body, `"uid":"u-`) || c.said != "" && !strings.Contains(said.String(), c.said) {
			t.Errorf("%s: the Secret deleted: %v (%q, body %s); said %q", c.name, deleted, seen(), body, said.String())
		}
	}
}

// A pod list of hundreds of thousands of empty pods (under a MB) is
// refused after the most a Job of its clients has, not decoded whole (3
// million, 9 MB, took gigabytes and ended the process out of memory).
func TestKubePodListBounded(t *testing.T) {
	huge := `{"kind":"PodList","apiVersion":"v1","items":[{}` + strings.Repeat(`,{}`, 300_000) + `]}`
	served := make(chan struct{}, 1)
	k, _ := standInAPI(t, func(r *http.Request) (int, string) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/pods") {
			select {
			case served <- struct{}{}:
			default:
			}
			return http.StatusOK, huge
		}
		return http.StatusOK, `{"kind":"Status","apiVersion":"v1","status":"Success"}`
	})
	j := &job{stderr: io.Discard, mu: &sync.Mutex{}, n: 2, exited: func(int, error) {}, placed: func(int, string) {}}
	ctx, cancel := context.WithCancel(context.Background())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan []error)
	go func() { done <- k.run(ctx, j) }()
	<-served
	<-served // the first list read whole (or refused) before the second is asked
	cancel()
	<-done
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("two polls of a list of %d bytes allocated %d MiB", len(huge), got>>20)
	}
	_, err := decodePods([]byte(huge), maxPods(2))
	if err == nil || !strings.Contains(err.Error(), "more than 104 pods") {
		t.Errorf("decode: %v", err)
	}
	pods, err := decodePods([]byte(`{"kind":"PodList","items":[{"metadata":{"name":"a","annotations":{"batch.kubernetes.io/job-completion-index":"1","x":"y"}},"spec":{"nodeName":"n1"},`+
		`"status":{"phase":"Failed","containerStatuses":[{"state":{"terminated":{"exitCode":3,"reason":"Error"}}}]}}]}`), maxPods(2))
	if err != nil || len(pods) != 1 || pods[0].Name != "a" || pods[0].Status.Phase != corev1.PodFailed || pods[0].Annotations["batch.kubernetes.io/job-completion-index"] != "1" ||
		podPlace(&pods[0]) != "pod a on node n1" || podWhy(&pods[0]) != "exit code 3 Error" {
		t.Errorf("decode: %v, %+v", err, pods)
	}
	// One pod of 3,000,000 containers (9 MB) is refused, not decoded.
	big := `{"items":[{"metadata":{"name":"b"},"spec":{"containers":[{}` + strings.Repeat(`,{}`, 3_000_000) + `]}}]}`
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = decodePods([]byte(big), maxPods(2))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "more than 256 KiB: refused") {
		t.Errorf("a pod of 9 MB: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("a pod of 9 MB allocated %d MiB", got>>20)
	}
}

// An answer of one object (a Secret's create) is bounded at
// maxKubeObject, not at the pod list's bound: client-go decodes it whole,
// and 60 MB of empty objects took gigabytes. The create fails in one line
// naming the bound, having taken little memory.
func TestKubeObjectAnswerBounded(t *testing.T) {
	body := `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"bench","ownerReferences":[` + strings.Repeat(`{},`, 2_000_000) + `{}]}}`
	k, _ := standInAPI(t, func(r *http.Request) (int, string) { return http.StatusCreated, body })
	j := &job{id: "run1", stderr: io.Discard, mu: &sync.Mutex{}, token: "t", url: "https://127.0.0.1:1"}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	err := k.prepare(context.Background(), j)
	runtime.ReadMemStats(&m1)
	if err == nil || !strings.Contains(err.Error(), "answered more than 1 MiB") || strings.Contains(err.Error(), "\n") {
		t.Errorf("prepare: %v", err)
	}
	if grew := (m1.TotalAlloc - m0.TotalAlloc) >> 20; grew > 100 {
		t.Errorf("the answer took %d MiB", grew)
	}
}
