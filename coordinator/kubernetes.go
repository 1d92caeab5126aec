package coordinator

import (
	"bytes"
	"net"
	"path/filepath"
	"strconv"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// KubernetesIndexEnv is where a pod of an Indexed Job finds its index.
const KubernetesIndexEnv = "JOB_COMPLETION_INDEX"

// The paths a client's container sees: the phase's properties (on
// Kubernetes a ConfigMap), its credentials (a Secret) and the results (a
// volume of the user's); the image has only /servbench, the binary.
const (
	PodProps   = "/phase/phase.properties"
	PodSecrets = "/credentials/secret.properties"
	PodResults = "/results"
)

// Manifest is one file of the Kubernetes manifests.
type Manifest struct {
	Name   string // its file name
	Text   []byte
	Secret bool // it holds credentials: only its owner may read it
}

// indexedJob is the Indexed Job of n clients, one container each, that
// both the API server (kube.job) and the manifests (Manifests) get: the
// one model of a spread phase's clients on Kubernetes.
func indexedJob(name string, n int, labels map[string]string, c corev1.Container, volumes []corev1.Volume) *batchv1.Job {
	count, zero := int32(n), int32(0)
	mode := batchv1.IndexedCompletion
	c.Name = "client"
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode: &mode, Completions: &count, Parallelism: &count, BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{c}, Volumes: volumes},
			},
		},
	}
}

// Manifests are the ConfigMap, Secret (when a property holds a
// credential) and Job of setup's phase spread over its clients, written as
// the Kubernetes API's own types, c the orchestrator's configuration. The
// phase's outputs are checked as Run checks them (CheckOutputs) and the
// clients given the properties Run gives them (ClientProps).
func Manifests(setup *engine.Setup, c Config) ([]Manifest, error) {
	if err := CheckOutputs(setup); err != nil {
		return nil, err
	}
	cmd, binding, n, p := setup.Spec.Phase.String(), setup.Spec.Binding, setup.Client.Count, ClientProps(setup)
	own, _ := c.Own.(kubeConfig)
	name, image, claim := own.Name, own.Image, own.Claim
	if claim == "" {
		return nil, setup.Props.Errorf("kubernetes.claim", "name the PersistentVolumeClaim the clients write their results to")
	}
	if name == "" {
		name = "servbench-" + cmd
	}
	public, secret := props.New(), props.New()
	var known props.Redactor // a value that repeats another's secret is one too
	known.Known(p)
	for _, k := range p.Keys() {
		v, _ := p.Get(k)
		if props.RedactValue(k, v) != v || known.HideKnown(v) != v {
			secret.Set(k, v, "")
		} else {
			public.Set(k, v, "")
		}
	}
	labels := map[string]string{"app.kubernetes.io/name": "servbench", "app.kubernetes.io/instance": name}
	text := func(q *props.Props) (string, error) {
		var b bytes.Buffer
		err := q.Write(&b)
		return b.String(), err
	}
	var out []Manifest
	add := func(file string, v any, isSecret bool) error {
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		out = append(out, Manifest{Name: file, Text: b, Secret: isSecret})
		return nil
	}
	pub, err := text(public)
	if err != nil {
		return nil, err
	}
	meta := metav1.ObjectMeta{Name: name, Labels: labels}
	if err := add("configmap.yaml", &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta,
		Data: map[string]string{filepath.Base(PodProps): pub}}, false); err != nil {
		return nil, err
	}
	ct := corev1.Container{Image: image, Args: []string{cmd, binding, "-P", PodProps},
		VolumeMounts: []corev1.VolumeMount{{Name: "properties", MountPath: filepath.Dir(PodProps), ReadOnly: true}}}
	volumes := []corev1.Volume{{Name: "properties", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}}
	if len(secret.Keys()) > 0 {
		sec, err := text(secret)
		if err != nil {
			return nil, err
		}
		if err := add(SecretFile, &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta,
			Type: corev1.SecretTypeOpaque, StringData: map[string]string{filepath.Base(PodSecrets): sec}}, true); err != nil {
			return nil, err
		}
		ct.Args = append(ct.Args, "-P", PodSecrets)
		ct.VolumeMounts = append(ct.VolumeMounts, corev1.VolumeMount{Name: "credentials", MountPath: filepath.Dir(PodSecrets), ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: "credentials", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}})
	}
	ct.Args = append(ct.Args, "--client-index-from", "kubernetes", "-o", PodResults+"/result.json")
	ct.VolumeMounts = append(ct.VolumeMounts, corev1.VolumeMount{Name: "results", MountPath: PodResults})
	volumes = append(volumes, corev1.Volume{Name: "results", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	var annotations map[string]string
	if addr, ok := p.Get("metrics.addr"); ok {
		host, port, _ := net.SplitHostPort(addr)
		pn, err := strconv.Atoi(port)
		if err != nil || pn < 1 || pn > 65535 {
			return nil, p.Errorf("metrics.addr", "want a port number, not %q", props.Cut(port, 20))
		}
		if host != "" && host != "0.0.0.0" && host != "::" {
			return nil, p.Errorf("metrics.addr", "a pod serves its metrics to Prometheus on all its addresses: give :%s, not %s", port, addr)
		}
		annotations = map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": port, "prometheus.io/path": "/metrics"}
		ct.Ports = []corev1.ContainerPort{{Name: "metrics", ContainerPort: int32(pn)}}
	}
	job := indexedJob(name, n, labels, ct, volumes)
	job.Spec.Template.Annotations = annotations
	if err := add("job.yaml", job, false); err != nil {
		return nil, err
	}
	return out, nil
}

// SecretFile is the manifest of the phase's credentials.
const SecretFile = "secret.yaml"
