package cli

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/result"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeSetup is the one-node cluster scripts/servers starts (kubernetes: a
// real kube-apiserver, controller manager and scheduler, and a test
// kubelet that runs pods under Docker), the image and Redis.
func kubeSetup(t *testing.T) (kubeconfig, image, redisURL string, client kubernetes.Interface) {
	kubeconfig = dbtest.ServerURL(t, "SERVBENCH_KUBERNETES_URL")
	image, redisURL = dockerImage(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if client, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	return kubeconfig, image, redisURL, client
}

// nothingLeftInCluster waits (bounded) for the run's Job, pods and Secret
// to be gone.
func nothingLeftInCluster(t *testing.T, client kubernetes.Interface) {
	t.Helper()
	var left []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		left = nil
		ctx := context.Background()
		sel := metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=servbench"}
		if jobs, err := client.BatchV1().Jobs("default").List(ctx, sel); err == nil {
			for _, j := range jobs.Items {
				left = append(left, "job "+j.Name)
			}
		}
		if pods, err := client.CoreV1().Pods("default").List(ctx, sel); err == nil {
			for _, p := range pods.Items {
				left = append(left, "pod "+p.Name)
			}
		}
		if secrets, err := client.CoreV1().Secrets("default").List(ctx, sel); err == nil {
			for _, s := range secrets.Items {
				left = append(left, "secret "+s.Name)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("left in the cluster: %v", left)
	}
}

// servbench run --orchestrator kubernetes alone: a Job of 3 pods through
// the API server with the kubeconfig, against Redis; the merged result is
// exact, each client named by its pod and node, and the Job, its pods and
// the Secret are deleted afterwards. A client that fails fails the run by
// name; Ctrl-C deletes the Job.
func TestKubernetesClients(t *testing.T) {
	kubeconfig, image, url, client := kubeSetup(t)
	t.Setenv("KUBECONFIG", kubeconfig)
	out := filepath.Join(t.TempDir(), "r.json")
	base := []string{"run", "redis", "-w", "c", "-p", "recordcount=3000", "-threads", "3", "--clients", "3",
		"--orchestrator", "kubernetes", "--image", image}
	code, _, e := servbench(t, append(base, "-p", "redis.url="+url, "-p", "operationcount=9001", "-p", "dataintegrity=true", "-o", out)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	mergedVerified(t, out, 3, 9001)
	nothingLeftInCluster(t, client)

	// A client that cannot reach its server fails, named by its pod and node.
	code, _, e = servbench(t, append(base, "-p", "redis.url=redis://127.0.0.1:1", "-p", "operationcount=300")...)
	if code != ExitFailure || !regexp.MustCompile(`client [0-2] of 3 \(pod servbench-[0-9a-f]+-[0-2]-\w+ on node servbench-node\) failed: redis: connect 127\.0\.0\.1:1: .*no merged result`).MatchString(e) {
		t.Errorf("clients without a server: exit %d: %s", code, e)
	}
	nothingLeftInCluster(t, client)

	// Ctrl-C once the clients measure: the run ends interrupted with what
	// they measured, and the Job is deleted.
	code, text := interruptWhenMeasuring(t, 3, append(base, "-p", "redis.url="+url, "-p", "operationcount=0", "--duration", "600", "-target", "300",
		"-p", "status.interval=1", "-o", out)...)
	if code != ExitInterrupted {
		t.Fatalf("interrupted: exit %d: %s", code, text)
	}
	if m, err := result.ReadFile(out); err != nil || m.Clients != 3 || m.Stop != result.Interrupted {
		t.Errorf("interrupted: merged %v: %+v", err, m)
	}
	nothingLeftInCluster(t, client)
}
