package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/servbench/servbench/coordinator"
	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// strictDecode reads a manifest into the Kubernetes API's own type,
// refusing any field the API does not have.
func strictDecode(t *testing.T, path string, into any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	j, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		t.Fatalf("%s does not decode strictly as the Kubernetes API's type: %v\n%s", path, err, raw)
	}
}

// --emit writes an Indexed Job of N clients, a ConfigMap of the phase's
// properties and a Secret of its credentials, which decode strictly with
// the official k8s.io/api types; the Job runs N pods at once, each reading
// its index from JOB_COMPLETION_INDEX, the properties and credentials as
// files and writing to the claim named; Prometheus' scrape annotations
// point at the metrics port. No credential is in the ConfigMap, the Job or
// the command's output.
func TestKubernetesManifests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, stdout, stderr := servbench(t, "run", "redis", "-w", "b", "--clients", "4", "-threads", "8", "--orchestrator", "kubernetes",
		"--image", "registry.example/servbench:1", "-p", "kubernetes.claim=results", "-p", "redis.url=redis://u:s3cret@127.0.0.1:6379",
		"-p", "redis.password=hunter2", "--metrics-addr", ":9464", "-p", "startat=2026-11-23T18:00:00Z", "--emit", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var cm corev1.ConfigMap
	var sec corev1.Secret
	var job batchv1.Job
	strictDecode(t, filepath.Join(dir, "configmap.yaml"), &cm)
	strictDecode(t, filepath.Join(dir, "secret.yaml"), &sec)
	strictDecode(t, filepath.Join(dir, "job.yaml"), &job)
	if cm.Kind != "ConfigMap" || sec.Kind != "Secret" || job.Kind != "Job" || job.APIVersion != "batch/v1" {
		t.Errorf("kinds %q %q %q/%q", cm.Kind, sec.Kind, job.Kind, job.APIVersion)
	}
	props := cm.Data["phase.properties"]
	for _, want := range []string{"clients=4", "threadcount=8", "startat=2026-11-23T18:00:00Z", "workloadname=workload b"} {
		if !strings.Contains(props, want) {
			t.Errorf("ConfigMap lacks %q:\n%s", want, props)
		}
	}
	creds := sec.StringData["secret.properties"]
	if !strings.Contains(creds, "hunter2") || !strings.Contains(creds, "s3cret") {
		t.Errorf("Secret: %q", creds)
	}
	for _, f := range []string{"configmap.yaml", "job.yaml"} {
		raw, _ := os.ReadFile(filepath.Join(dir, f))
		if bytes.Contains(raw, []byte("hunter2")) || bytes.Contains(raw, []byte("s3cret")) {
			t.Errorf("%s holds a credential", f)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "secret.yaml")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("secret.yaml: %v, mode %v", err, st.Mode())
	}
	if strings.Contains(stdout+stderr, "hunter2") || strings.Contains(stdout+stderr, "s3cret") {
		t.Error("a credential was printed")
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 4 || *s.Parallelism != 4 || *s.BackoffLimit != 0 {
		t.Errorf("job spec: mode %v, completions %v, parallelism %v, backoff %v", s.CompletionMode, *s.Completions, *s.Parallelism, *s.BackoffLimit)
	}
	pod := s.Template
	if pod.Annotations["prometheus.io/scrape"] != "true" || pod.Annotations["prometheus.io/port"] != "9464" || pod.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("pod annotations %v, restart %q", pod.Annotations, pod.Spec.RestartPolicy)
	}
	c := pod.Spec.Containers[0]
	wantArgs := []string{"run", "redis", "-P", coordinator.PodProps, "-P", coordinator.PodSecrets, "--client-index-from", "kubernetes", "-o", coordinator.PodResults + "/result.json"}
	if c.Image != "registry.example/servbench:1" || !slices.Equal(c.Args, wantArgs) || len(c.Ports) != 1 || c.Ports[0].ContainerPort != 9464 {
		t.Errorf("container %q %q, ports %v", c.Image, c.Args, c.Ports)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	vols := map[string]corev1.VolumeSource{}
	for _, v := range pod.Spec.Volumes {
		vols[v.Name] = v.VolumeSource
	}
	if mounts["properties"] != "/phase" || vols["properties"].ConfigMap == nil || vols["properties"].ConfigMap.Name != cm.Name ||
		mounts["credentials"] != "/credentials" || vols["credentials"].Secret == nil || vols["credentials"].Secret.SecretName != sec.Name ||
		mounts["results"] != "/results" || vols["results"].PersistentVolumeClaim == nil || vols["results"].PersistentVolumeClaim.ClaimName != "results" {
		t.Errorf("mounts %v, volumes %+v", mounts, vols)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--orchestrator", "kubernetes"}, "kubernetes.claim"},
		{[]string{"--orchestrator", "docker", "-p", "kubernetes.claim=r"}, "give --orchestrator kubernetes"},
		{[]string{"--orchestrator", "kubernetes", "-p", "kubernetes.claim=r", "--metrics-addr", "127.0.0.1:9464"}, "give :9464"},
		{[]string{"--orchestrator", "kubernetes", "-p", "kubernetes.claim=r", "-p", "kubernetes.name=Bad_Name"}, "kubernetes.name"},
		{[]string{"--orchestrator", "kubernetes", "-p", "kubernetes.claim=r", "-p", "kubernetes.name=" + strings.Repeat("a", 64)}, "at most 63"},
	} {
		args := append([]string{"run", "redis", "-w", "b", "--clients", "2", "-threads", "2", "--emit", t.TempDir()}, c.args...)
		if code, _, e := servbench(t, args...); code != ExitUsage || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d: %s", c.args, code, e)
		}
	}
	// Emitted again without credentials: the old Secret goes, so that
	// kubectl apply -f DIR cannot apply the old password.
	code, stdout, stderr = servbench(t, "run", "redis", "-w", "b", "--clients", "4", "-threads", "8", "--orchestrator", "kubernetes",
		"-p", "kubernetes.claim=results", "-p", "redis.url=redis://127.0.0.1:6379", "--emit", dir)
	if code != ExitOK {
		t.Fatalf("emitted again: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "secret.yaml")); err == nil || !strings.Contains(stdout, "removed") {
		t.Errorf("the old secret.yaml is still there (%v): %s", err, stdout)
	}
	// A secret.yaml servbench did not write (the user's own) is left, and
	// said.
	users := filepath.Join(dir, "secret.yaml")
	if err := os.WriteFile(users, []byte("kind: Secret\nmetadata: {name: mine}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = servbench(t, "run", "redis", "-w", "b", "--clients", "4", "-threads", "8", "--orchestrator", "kubernetes",
		"-p", "kubernetes.claim=results", "-p", "redis.url=redis://127.0.0.1:6379", "--emit", dir)
	if b, err := os.ReadFile(users); code != ExitOK || err != nil || !strings.Contains(string(b), "name: mine") || !strings.Contains(stdout, "left "+users) {
		t.Errorf("the user's secret.yaml: exit %d, %v, %q: %s%s", code, err, b, stdout, stderr)
	}
	if code, _, e := servbench(t, "run", "redis", "-w", "b", "--emit", t.TempDir()); code != ExitUsage || !strings.Contains(e, "--clients N") {
		t.Errorf("--emit without clients: exit %d: %s", code, e)
	}
}

// A property is the Secret's when any rule finds a secret in it, the
// token-bearing options of a driver's URL among them (MONGODB-AWS's
// AWS_SESSION_TOKEN in mongodb.url), or when it repeats another's
// secret; the ConfigMap holds neither.
func TestKubernetesManifestsSecretsByValue(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := servbench(t, "run", "mongodb", "-w", "b", "--clients", "2", "-threads", "2", "--orchestrator", "kubernetes",
		"--image", "registry.example/servbench:1", "-p", "kubernetes.claim=results",
		"-p", "mongodb.url=mongodb://AKIAEXAMPLE:hunter4x@127.0.0.1:27017/ycsb?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:hunter3x",
		"-p", "label=hunter3x", "--emit", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var cm corev1.ConfigMap
	var sec corev1.Secret
	strictDecode(t, filepath.Join(dir, "configmap.yaml"), &cm)
	strictDecode(t, filepath.Join(dir, "secret.yaml"), &sec)
	if creds := sec.StringData["secret.properties"]; !strings.Contains(creds, "mongodb.url") || !strings.Contains(creds, "label") {
		t.Errorf("Secret: %q", creds)
	}
	for _, f := range []string{"configmap.yaml", "job.yaml"} {
		if raw, _ := os.ReadFile(filepath.Join(dir, f)); bytes.Contains(raw, []byte("hunter")) {
			t.Errorf("%s holds a credential:\n%s", f, raw)
		}
	}
	if strings.Contains(stdout+stderr, "hunter") {
		t.Errorf("a credential was printed: %s%s", stdout, stderr)
	}
}

// A manifest that cannot be written (the Secret's on a full device, the
// Job's a pipe nobody reads) fails --emit by name, every other written.
func TestKubernetesManifestsEachWritten(t *testing.T) {
	base := t.TempDir()
	full := filepath.Join(base, "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, (1<<8)|7); err != nil {
		t.Skipf("mknod (needs root): %v", err)
	}
	for bad, other := range map[string]string{"secret.yaml": "job.yaml", "job.yaml": coordinator.SecretFile} {
		dir := filepath.Join(base, bad)
		os.MkdirAll(dir, 0o755)
		if bad == "secret.yaml" {
			os.Symlink(full, filepath.Join(dir, bad))
		} else {
			syscall.Mkfifo(filepath.Join(dir, bad), 0o644)
		}
		code, _, e := servbench(t, "run", "redis", "-w", "b", "--clients", "2", "-threads", "2", "--orchestrator", "kubernetes",
			"-p", "kubernetes.claim=results", "-p", "redis.url=redis://u:s3cret@127.0.0.1:6379", "--emit", dir)
		if code != ExitFailure || !strings.Contains(e, bad) {
			t.Errorf("%s unwritable: exit %d: %s", bad, code, e)
		}
		if _, err := os.Stat(filepath.Join(dir, other)); err != nil {
			t.Errorf("%s unwritable: %s: %v", bad, other, err)
		}
	}
}

// --emit checks a spread phase's outputs as a run does: a file of one
// process (HdrHistogram logs), which every pod would write to one path,
// is refused and nothing is written.
func TestEmitRefusesFilesOfOneProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	code, _, stderr := servbench(t, "run", "basic", "-w", "a", "--threads", "2", "--clients", "2", "--orchestrator", "kubernetes",
		"-p", "kubernetes.claim=pvc", "-p", "hdrhistogram.fileoutput=true", "--emit", dir)
	if code != ExitUsage || !strings.Contains(stderr, "hdrhistogram.fileoutput") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s written", dir)
	}
}
