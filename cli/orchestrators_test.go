package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/sink"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// run runs a command and fails the test with its output when it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	c := exec.Command(name, args...)
	c.Dir, c.Env = dir, append(os.Environ(), env...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// dockerImage builds servbench's image from this checkout with the
// commands docs/clients.md shows (a static binary, the Dockerfile FROM scratch) on the
// Docker that scripts/servers started, and loads Redis with records.
func dockerImage(t *testing.T) (image, redisURL string) {
	redisURL = dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	t.Setenv("DOCKER_HOST", dbtest.ServerURL(t, "SERVBENCH_DOCKER_URL"))
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run(t, root, []string{"CGO_ENABLED=0"}, "go", "build", "-trimpath", "-o", filepath.Join(dir, "servbench"), "./cmd/servbench")
	df, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), df, 0o644); err != nil {
		t.Fatal(err)
	}
	image = "servbench:test-" + strconv.Itoa(os.Getpid())
	run(t, dir, nil, "docker", "build", "--quiet", "--tag", image, dir)
	t.Cleanup(func() { exec.Command("docker", "rmi", "--force", image).Run() })
	if code, _, e := servbench(t, "load", "redis", "-w", "c", "-p", "redis.url="+redisURL, "-p", "recordcount=3000", "-threads", "4", "-p", "dataintegrity=true"); code != ExitOK {
		t.Fatalf("load: exit %d: %s", code, e)
	}
	return image, redisURL
}

// A run on 3 clients as a Docker Swarm replicated job (the docker
// orchestrator) against Redis: the merged result has every operation of
// the 3 clients, all verified, each client's result beside it with its
// own index, its clock measured against the coordinator's; the service
// and its containers are gone afterwards. Clients that fail fail the run.
func TestDockerSwarmClients(t *testing.T) {
	image, url := dockerImage(t)
	before := swarmContainers(t)
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := servbench(t, "run", "redis", "-w", "c", "-p", "redis.url="+url, "-p", "recordcount=3000",
		"-p", "operationcount=9001", "-threads", "3", "--clients", "3", "--orchestrator", "docker", "--image", image,
		"-p", "dataintegrity=true", "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := mergedVerified(t, out, 3, 9001)
	var idx []int
	for _, c := range m.ClientRuns {
		idx = append(idx, c.Index)
		if c.Clock == nil || c.Clock.RTTMs <= 0 {
			t.Errorf("client %d: clock not measured: %+v", c.Index, c.Clock)
		}
	}
	slices.Sort(idx)
	if !slices.Equal(idx, []int{0, 1, 2}) {
		t.Errorf("clients %v, want 0, 1, 2", idx)
	}
	for i := range 3 {
		if !strings.Contains(stderr, fmt.Sprintf("client %d: servbench: ran workload C on redis", i)) {
			t.Errorf("client %d's lines are not on stderr:\n%s", i, stderr)
		}
	}
	nothingLeft(t, before)

	// Clients that cannot reach their server fail (the coordinator does
	// not connect): Swarm would run them again and again; the first
	// failure fails the run, named, with nothing merged.
	failed := filepath.Join(t.TempDir(), "f.json")
	code, _, stderr = servbench(t, "run", "redis", "-w", "c", "-p", "redis.url=redis://127.0.0.1:1", "-p", "recordcount=3000",
		"-p", "operationcount=300", "-threads", "3", "--clients", "3", "--orchestrator", "docker", "--image", image, "-o", failed)
	if code != ExitFailure || !regexp.MustCompile(`run: client [0-2] of 3 \(host [^)]+\) failed: redis: connect 127\.0\.0\.1:1: .*: no merged result`).MatchString(stderr) {
		t.Errorf("clients without a server: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(failed); err == nil {
		t.Error("a merged result was written")
	}
	nothingLeft(t, before)

	// Ctrl-C once the clients measure: they stop through the coordinator,
	// and what they measured is merged; the service goes.
	code, text := interruptWhenMeasuring(t, 3, "run", "redis", "-w", "c", "-p", "redis.url="+url, "-p", "recordcount=3000", "-p", "operationcount=0",
		"--duration", "600", "-target", "300", "-threads", "3", "--clients", "3", "--orchestrator", "docker", "--image", image,
		"-p", "status.interval=1", "-o", out)
	if m, err := result.ReadFile(out); code != ExitInterrupted || err != nil || m.Clients != 3 || m.Stop != result.Interrupted {
		t.Errorf("interrupted: exit %d, merged %v: %s", code, err, text)
	}
	nothingLeft(t, before)
}

// mergedVerified reads a merged result and checks that it has every
// operation of its clients, each one succeeded and verified
// (dataintegrity).
func mergedVerified(t *testing.T, out string, clients int, ops int64) *result.Doc {
	t.Helper()
	m, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	verified := int64(0)
	for _, op := range m.Ops {
		if op.Name == "VERIFY" {
			verified = op.Outcomes["OK"]
		}
	}
	if m.Clients != clients || m.Operations != ops || m.OKOperations != ops || verified != ops {
		t.Errorf("merged %d clients, %d operations, %d ok, %d verified; want %d, %d", m.Clients, m.Operations, m.OKOperations, verified, clients, ops)
	}
	return m
}

// swarmContainers lists the containers of Swarm's services.
func swarmContainers(t *testing.T) []string {
	t.Helper()
	return strings.Fields(run(t, "", nil, "docker", "ps", "--all", "--quiet", "--filter", "label=com.docker.swarm.service.name"))
}

// nothingLeft checks that a run removed the service and containers it
// started (those there before are another's).
func nothingLeft(t *testing.T, before []string) {
	t.Helper()
	for _, c := range swarmContainers(t) {
		if !slices.Contains(before, c) {
			t.Errorf("container %s left", c)
		}
	}
	if left := run(t, "", nil, "docker", "service", "ls", "--quiet", "--filter", "name=servbench-"); strings.TrimSpace(left) != "" {
		t.Errorf("services left: %s", left)
	}
}

// The Kubernetes manifests, run as a kubelet would run their pods: for
// each completion index, the image with the Job's arguments, the
// environment an Indexed Job gives (JOB_COMPLETION_INDEX), the ConfigMap's
// files mounted where the Job mounts them and a directory for the claim.
// The clients wait for the start given, and their results merge.
func TestKubernetesPodsUnderDocker(t *testing.T) {
	image, url := dockerImage(t)
	emitted, claim := t.TempDir(), t.TempDir()
	start := time.Now().Add(5 * time.Second).UTC().Format(time.RFC3339Nano)
	if code, _, e := servbench(t, "run", "redis", "-w", "c", "-p", "redis.url="+url, "-p", "recordcount=3000", "-p", "operationcount=6000",
		"-threads", "6", "--clients", "3", "--orchestrator", "kubernetes", "--image", image, "-p", "kubernetes.claim=results",
		"-p", "startat="+start, "--emit", emitted); code != ExitOK {
		t.Fatalf("emit: exit %d: %s", code, e)
	}
	var cm corev1.ConfigMap
	var job batchv1.Job
	strictDecode(t, filepath.Join(emitted, "configmap.yaml"), &cm)
	strictDecode(t, filepath.Join(emitted, "job.yaml"), &job)
	pod := job.Spec.Template.Spec
	volumes := map[string]string{}
	for _, v := range pod.Volumes {
		switch {
		case v.ConfigMap != nil:
			dir := t.TempDir()
			for name, text := range cm.Data {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			volumes[v.Name] = dir
		case v.PersistentVolumeClaim != nil:
			volumes[v.Name] = claim
		default:
			t.Fatalf("volume %s of an unexpected kind", v.Name)
		}
	}
	c := pod.Containers[0]
	var ids []string
	for i := range int(*job.Spec.Completions) {
		args := []string{"run", "--detach", "--network", "host", "--env", fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}
		for _, m := range c.VolumeMounts {
			mount := "type=bind,src=" + volumes[m.Name] + ",dst=" + m.MountPath
			if m.ReadOnly {
				mount += ",readonly"
			}
			args = append(args, "--mount", mount)
		}
		ids = append(ids, strings.TrimSpace(run(t, "", nil, "docker", append(append(args, c.Image), c.Args...)...)))
	}
	t.Cleanup(func() { exec.Command("docker", append([]string{"rm", "--force"}, ids...)...).Run() })
	exits := strings.Fields(run(t, "", nil, "docker", append([]string{"wait"}, ids...)...))
	if !slices.Equal(exits, []string{"0", "0", "0"}) {
		t.Fatalf("pods exited %v\n%s", exits, run(t, "", nil, "docker", "logs", ids[0]))
	}
	var files []string
	for i := range 3 {
		files = append(files, filepath.Join(claim, fmt.Sprintf("result.client-%d.json", i)))
	}
	merged := filepath.Join(t.TempDir(), "merged.json")
	if code, _, e := servbench(t, append(append([]string{"merge"}, files...), "-o", merged)...); code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	m, err := result.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	if m.Clients != 3 || m.Operations != 6000 || m.OKOperations != 6000 || m.Threads != 6 {
		t.Errorf("merged %d clients, %d threads, %d operations (%d ok); want 3, 6, 6000", m.Clients, m.Threads, m.Operations, m.OKOperations)
	}
}

// The command knows orchestrators only through their registry: load's and
// run's help names each one, its help and every property it reads, and
// every flag a property names is accepted, setting that property.
func TestOrchestratorsHelpFromTheRegistry(t *testing.T) {
	code, help, _ := servbench(t, "help", "run")
	if code != ExitOK {
		t.Fatalf("help: exit %d", code)
	}
	flat := strings.Join(strings.Fields(help), " ")
	for _, o := range coordinator.All() {
		if !strings.Contains(flat, o.Name+" ("+o.Help+")") {
			t.Errorf("the help lacks %s (%s)", o.Name, o.Help)
		}
		for _, pr := range o.Properties {
			if !strings.Contains(flat, pr.Name) {
				t.Errorf("the help lacks %s's %s", o.Name, pr.Name)
			}
			if pr.Flag == "" {
				continue
			}
			pa, err := parsePhase(context.Background(), "run", []string{"basic", "--" + pr.Flag, "x-" + pr.Flag}, io.Discard)
			if err != nil {
				t.Errorf("--%s: %v", pr.Flag, err)
				continue
			}
			if v, _ := pa.props.Get(pr.Name); v != "x-"+pr.Flag {
				t.Errorf("--%s sets %s to %q", pr.Flag, pr.Name, v)
			}
		}
	}
}

// Every property of every registered output is named in load's and run's
// help, and the client's help names the orchestrators that start clients
// from a template, as registered.
func TestOutputsAndTemplatesInTheHelp(t *testing.T) {
	_, help, _ := servbench(t, "help", "run")
	flat := strings.Join(strings.Fields(help), " ")
	for _, k := range sink.Properties(sink.Names()...) {
		if !strings.Contains(flat, k) {
			t.Errorf("the help lacks %s", k)
		}
	}
	_, client, _ := servbench(t, "client", "--help")
	if want := strings.Join(coordinator.Templated(), "|"); !strings.Contains(client, want) {
		t.Errorf("the client's help lacks %s:\n%s", want, client)
	}
}
