package coordinator

import (
	"bytes"
	"net"
	"path/filepath"
	"strconv"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"go.yaml.in/yaml/v2"
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

// The manifests' shapes: the fields servbench writes, named as the
// Kubernetes API names them (the tests decode them with its own types,
// strictly).
type (
	k8sMeta struct {
		Name        string            `yaml:"name"`
		Labels      map[string]string `yaml:"labels,omitempty"`
		Annotations map[string]string `yaml:"annotations,omitempty"`
	}
	// k8sObject is what every object starts with.
	k8sObject struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   k8sMeta `yaml:"metadata"`
	}
	k8sConfig struct {
		k8sObject  `yaml:",inline"`
		Type       string            `yaml:"type,omitempty"`
		Data       map[string]string `yaml:"data,omitempty"`
		StringData map[string]string `yaml:"stringData,omitempty"`
	}
	k8sJob struct {
		k8sObject `yaml:",inline"`
		Spec      struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Parallelism    int    `yaml:"parallelism"`
			BackoffLimit   int    `yaml:"backoffLimit"`
			Template       struct {
				Metadata k8sMeta `yaml:"metadata"`
				Spec     struct {
					RestartPolicy string         `yaml:"restartPolicy"`
					Containers    []k8sContainer `yaml:"containers"`
					Volumes       []k8sVolume    `yaml:"volumes"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	k8sContainer struct {
		Name         string     `yaml:"name"`
		Image        string     `yaml:"image"`
		Args         []string   `yaml:"args"`
		Ports        []k8sPort  `yaml:"ports,omitempty"`
		VolumeMounts []k8sMount `yaml:"volumeMounts"`
	}
	k8sPort struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	}
	k8sMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly,omitempty"`
	}
	k8sVolume struct {
		Name      string        `yaml:"name"`
		ConfigMap *k8sRef       `yaml:"configMap,omitempty"`
		Secret    *k8sSecretRef `yaml:"secret,omitempty"`
		Claim     *k8sClaimRef  `yaml:"persistentVolumeClaim,omitempty"`
	}
	k8sRef struct {
		Name string `yaml:"name"`
	}
	k8sSecretRef struct {
		SecretName string `yaml:"secretName"`
	}
	k8sClaimRef struct {
		ClaimName string `yaml:"claimName"`
	}
)

// Manifests are the ConfigMap, Secret (when a property holds a
// credential) and Job of a phase of n clients.
func Manifests(cmd, binding string, p *props.Props, cl engine.Client) ([]Manifest, error) {
	name, image, n, claim := cl.Name, cl.Image, cl.Count, cl.Claim
	public, secret := props.New(), props.New()
	for _, k := range p.Keys() {
		v, _ := p.Get(k)
		if props.RedactValue(k, v) != v {
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
	if err := add("configmap.yaml", k8sConfig{k8sObject: k8sObject{"v1", "ConfigMap", k8sMeta{Name: name, Labels: labels}},
		Data: map[string]string{filepath.Base(PodProps): pub}}, false); err != nil {
		return nil, err
	}
	var job k8sJob
	job.k8sObject = k8sObject{"batch/v1", "Job", k8sMeta{Name: name, Labels: labels}}
	s := &job.Spec
	s.CompletionMode, s.Completions, s.Parallelism, s.BackoffLimit = "Indexed", n, n, 0
	s.Template.Metadata = k8sMeta{Labels: labels}
	ps := &s.Template.Spec
	ps.RestartPolicy = "Never"
	c := k8sContainer{Name: "client", Image: image}
	c.Args = []string{cmd, binding, "-P", PodProps}
	c.VolumeMounts = []k8sMount{{Name: "properties", MountPath: filepath.Dir(PodProps), ReadOnly: true}}
	ps.Volumes = []k8sVolume{{Name: "properties", ConfigMap: &k8sRef{Name: name}}}
	if len(secret.Keys()) > 0 {
		sec, err := text(secret)
		if err != nil {
			return nil, err
		}
		if err := add(SecretFile, k8sConfig{k8sObject: k8sObject{"v1", "Secret", k8sMeta{Name: name, Labels: labels}},
			Type: "Opaque", StringData: map[string]string{filepath.Base(PodSecrets): sec}}, true); err != nil {
			return nil, err
		}
		c.Args = append(c.Args, "-P", PodSecrets)
		c.VolumeMounts = append(c.VolumeMounts, k8sMount{Name: "credentials", MountPath: filepath.Dir(PodSecrets), ReadOnly: true})
		ps.Volumes = append(ps.Volumes, k8sVolume{Name: "credentials", Secret: &k8sSecretRef{SecretName: name}})
	}
	c.Args = append(c.Args, "--client-index-from", "kubernetes", "-o", PodResults+"/result.json")
	c.VolumeMounts = append(c.VolumeMounts, k8sMount{Name: "results", MountPath: PodResults})
	ps.Volumes = append(ps.Volumes, k8sVolume{Name: "results", Claim: &k8sClaimRef{ClaimName: claim}})
	if addr, ok := p.Get("metrics.addr"); ok {
		host, port, _ := net.SplitHostPort(addr)
		pn, err := strconv.Atoi(port)
		if err != nil {
			return nil, p.Errorf("metrics.addr", "want a port number, not %q", props.Cut(port, 20))
		}
		if host != "" && host != "0.0.0.0" && host != "::" {
			return nil, p.Errorf("metrics.addr", "a pod serves its metrics to Prometheus on all its addresses: give :%s, not %s", port, addr)
		}
		s.Template.Metadata.Annotations = map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": port, "prometheus.io/path": "/metrics"}
		c.Ports = []k8sPort{{Name: "metrics", ContainerPort: pn}}
	}
	ps.Containers = []k8sContainer{c}
	if err := add("job.yaml", job, false); err != nil {
		return nil, err
	}
	return out, nil
}

// SecretFile is the manifest of the phase's credentials.
const SecretFile = "secret.yaml"
