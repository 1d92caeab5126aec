package coordinator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/homedir"
	"k8s.io/klog/v2"
)

// kube runs the clients as a Kubernetes Indexed Job through the API, with
// the user's kubeconfig and context (kubernetes.kubeconfig, $KUBECONFIG or
// ~/.kube/config; kubernetes.context; kubernetes.namespace): a Secret
// holds the run's secret and the coordinator's address, the Job's pods
// run "servbench client --client-index-from kubernetes" with both in
// their environment, and the coordinator waits for them, names each
// client by its pod and node, and deletes the Job and the Secret at the
// end, after a failure or at Ctrl-C.
//
// How the pods reach the coordinator: at coordinator.url when given (an
// address of the user's machine that the pods can reach, with
// coordinator.addr where to listen); otherwise at the address the
// coordinator listens on, which only pods on this machine's network
// reach: when that address is loopback the pods run on their node's
// network (hostNetwork), which is this machine for a one-machine cluster.
// A coordinator running as a pod itself, followed through the API server,
// is the way for a user whose machine the cluster cannot reach; it is not
// built yet.
type kube struct {
	client    kubeClient
	namespace string
	image     string
	name      string
	url       string // coordinator.url, as the pods reach it ("": the listening address)
	poll      time.Duration
	mu        sync.Mutex
	// The Job and the Secret this run made: their UIDs when the API
	// server answered their create, or maybe when it did not (the request
	// was sent, the answer lost: made or not, and one of the same name may
	// be the user's). The cleanup deletes only an object that carries
	// this run's annotation, by its UID.
	madeJob, madeSecret made
	runID               string // the run's identity, its objects' runAnnotation
	credDone            func() // ends boundExec's watch of the credential plugins
}

// made is what the cleanup knows of an object the run created: its UID
// when the API server answered the create, or maybe when it did not.
type made struct {
	uid   types.UID
	maybe bool
}

// create sends req, a create of one object, and notes in m what the
// cleanup needs of it: its UID, decoded into into, or that it may have
// been made (the request was sent and not answered).
func (k *kube) create(ctx context.Context, req *restclient.Request, into interface {
	runtime.Object
	GetUID() types.UID
}, m *made) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var wrote atomic.Bool
	err := req.Do(quiet(traceSent(ctx, &wrote))).Into(into)
	k.mu.Lock()
	if err == nil {
		m.uid = into.GetUID()
	}
	m.maybe = err != nil && unanswered(err) && wrote.Load() // made or not: the cleanup asks
	k.mu.Unlock()
	return err
}

func init() {
	register(Orchestrator{Name: "kubernetes", Help: "an Indexed Job through the API with your kubeconfig",
		Properties: []Property{imageProperty,
			{Name: "kubernetes.claim", Help: "the PersistentVolumeClaim the clients of --emit's manifests write their results to"},
			{Name: "kubernetes.name", Help: "the Job's name (servbench-RANDOM; servbench-load or -run for --emit)"},
			{Name: "kubernetes.kubeconfig", Help: "the kubeconfig ($KUBECONFIG, ~/.kube/config)"},
			{Name: "kubernetes.context", Help: "the kubeconfig's context (its current one)"},
			{Name: "kubernetes.namespace", Help: "the namespace (the context's)"},
		},
		Read: readKube,
		start: func(ctx context.Context, c Config) (orchestrator, error) {
			return newKube(ctx, c.Own.(kubeConfig), c.URL)
		},
		IndexEnv: func(getenv func(string) string) (int, error) {
			v := getenv(KubernetesIndexEnv)
			i, err := strconv.Atoi(v)
			if err != nil || i < 0 {
				return 0, fmt.Errorf("--client-index-from kubernetes: %s=%q is not a completion index (the Indexed Job sets it)", KubernetesIndexEnv, props.Cut(v, 40))
			}
			return i, nil
		},
		Emit: Manifests})
}

// kubeConfig is the kubernetes orchestrator's configuration: the pods'
// image (docker.image), the volume claim for the results of --emit's
// manifests and the Job's name (kubernetes.claim, kubernetes.name);
// Kubeconfig, Context and Namespace where it goes (kubernetes.kubeconfig,
// kubernetes.context, kubernetes.namespace; the kubeconfig's when not
// given).
type kubeConfig struct{ Image, Claim, Name, Kubeconfig, Context, Namespace string }

func readKube(p *props.Props, _ bool) (any, error) {
	c := kubeConfig{Image: p.String("docker.image", "servbench"), Claim: p.String("kubernetes.claim", ""), Name: p.String("kubernetes.name", ""),
		Kubeconfig: p.String("kubernetes.kubeconfig", ""), Context: p.String("kubernetes.context", ""), Namespace: p.String("kubernetes.namespace", "")}
	if c.Name != "" && !dnsLabel(c.Name) {
		return nil, p.Errorf("kubernetes.name", "%q is not a Kubernetes name: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters", props.Cut(c.Name, 70))
	}
	if c.Namespace != "" && !dnsLabel(c.Namespace) {
		return nil, p.Errorf("kubernetes.namespace", "%q is not a Kubernetes namespace name", props.Cut(c.Namespace, 70))
	}
	return c, nil
}

func newKube(ctx context.Context, c kubeConfig, url string) (*kube, error) {
	rules := kubeconfigRules(c.Kubeconfig)
	if err := checkKubeconfig(rules); err != nil {
		return nil, err
	}
	cfg := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: c.Context})
	rest, err := cfg.ClientConfig()
	if err != nil {
		return nil, kubeconfigError(rules, c.Context, err)
	}
	// The kubeconfig's credentials are secrets for every writer: an API
	// server's answer may quote them.
	props.KnowEverywhere(rest.BearerToken)
	props.KnowEverywhere(rest.Password)
	credDone, err := boundExec(ctx, rest)
	if err != nil {
		return nil, err
	}
	ns := c.Namespace
	if ns == "" {
		if ns, _, err = cfg.Namespace(); err != nil || ns == "" {
			ns = "default"
		}
	}
	client, err := newKubeClient(rest)
	if err != nil {
		return nil, fmt.Errorf("kubernetes: %v", err)
	}
	name := c.Name
	if name == "" {
		if name, err = serviceName(); err != nil {
			return nil, err
		}
	}
	return &kube{client: client, namespace: ns, image: c.Image, name: name, url: url, poll: 500 * time.Millisecond, credDone: credDone}, nil
}

// kubeClient speaks to the two API groups the orchestrator uses (core:
// a Secret, pods and their logs; batch: a Job) through client-go's REST
// client, with a scheme of those groups only: client-go's typed clients
// register every group the API server has, hundreds of packages linked
// into the command for six requests.
type kubeClient struct{ core, batch *restclient.RESTClient }

func newKubeClient(cfg *restclient.Config) (kubeClient, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return kubeClient{}, err
	}
	if err := batchv1.AddToScheme(scheme); err != nil {
		return kubeClient{}, err
	}
	codecs := serializer.NewCodecFactory(scheme).WithoutConversion()
	group := func(gv schema.GroupVersion, path string) (*restclient.RESTClient, error) {
		c := *cfg
		c.GroupVersion, c.APIPath, c.NegotiatedSerializer = &gv, path, codecs
		c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return kubeBound{rt, "the Kubernetes API server " + format.Printable(cfg.Host)}
		})
		if c.UserAgent == "" {
			c.UserAgent = "servbench"
		}
		return restclient.RESTClientFor(&c)
	}
	core, err := group(corev1.SchemeGroupVersion, "/api")
	if err != nil {
		return kubeClient{}, err
	}
	batch, err := group(batchv1.SchemeGroupVersion, "/apis")
	return kubeClient{core, batch}, err
}

// kubeBound bounds each of the API server's answers before client-go
// reads it whole: a list of pods or a pod's log at maxKubeAnswer, any
// other (a Secret, a Job, a Status) at maxKubeObject. client-go decodes an
// answer whole into its objects: 60 MB of 20,000,000 empty objects in a
// Secret's or Job's answer took gigabytes.
type kubeBound struct {
	rt   http.RoundTripper
	from string
}

func (b kubeBound) RoundTrip(r *http.Request) (*http.Response, error) {
	max := maxKubeObject
	if r.Method == http.MethodGet && (strings.HasSuffix(r.URL.Path, "/pods") || strings.HasSuffix(r.URL.Path, "/log")) {
		max = maxKubeAnswer
	}
	return wire.BoundTransport{RoundTripper: b.rt, Max: max, From: b.from}.RoundTrip(r)
}

// maxKubeObject bounds an answer of one object or a Status: the run's
// Secret and Job are a few KB.
var maxKubeObject int64 = 1 << 20

// maxKubeAnswer bounds the API server's answers of many parts, a Job's
// pods and a pod's log (at most 1 MiB), which client-go reads whole before
// decoding (an endless one filled memory); an answer of one object is
// bounded by maxKubeObject.
var maxKubeAnswer int64 = 64 << 20

// quiet is ctx with client-go's log discarded: what a request says is
// its error (an answer cut at maxKubeAnswer was logged on stderr too).
func quiet(ctx context.Context) context.Context { return klog.NewContext(ctx, klog.Logger{}) }

// traceSent is ctx, traced so that wrote is set once a request made with
// it wrote its headers to a connection: a create unanswered whose request
// never left (its credentials failed, its context ended first) made
// nothing, and the cleanup asks the API server for nothing (which would
// run the kubeconfig's exec plugin once more, after the run was stopped).
func traceSent(ctx context.Context, wrote *atomic.Bool) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { wrote.Store(true) }})
}

// kubeconfigRules are client-go's rules for finding the kubeconfig:
// explicit (kubernetes.kubeconfig), $KUBECONFIG's list, or
// ~/.kube/config, the home directory's as the command runs (client-go's
// default takes it once, as it starts).
func kubeconfigRules(explicit string) *clientcmd.ClientConfigLoadingRules {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = explicit
	if os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" {
		if home := homedir.HomeDir(); home != "" {
			file := filepath.Join(home, clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName)
			rules.Precedence = []string{file}
			// An old ~/.kube/.kubeconfig is copied to a missing
			// ~/.kube/config, read whole too.
			rules.MigrationRules = map[string]string{file: filepath.Join(home, clientcmd.RecommendedHomeDir, ".kubeconfig")}
		}
	}
	return rules
}

// checkKubeconfig checks every file client-go would read whole, without
// a bound or a context, before it reads them: each kubeconfig
// (kubernetes.kubeconfig, each of $KUBECONFIG's list, ~/.kube/config),
// then the files they name (certificate-authority, client-certificate,
// client-key, tokenFile, resolved against their kubeconfig's directory).
// A pipe, a socket or a device (it would hold the command past Ctrl-C),
// or a file over wire.MaxFile (a 3 GB one ran out of memory), is refused
// in one line naming where the kubeconfig came from. What cannot be
// loaded is left to client-go, whose error kubeconfigError says.
func checkKubeconfig(rules *clientcmd.ClientConfigLoadingRules) error {
	from := kubeconfigFrom(rules)
	files := rules.GetLoadingPrecedence()
	if rules.ExplicitPath == "" {
		for _, old := range rules.MigrationRules {
			files = append(files, old)
		}
	}
	for _, f := range files {
		if err := wire.RegularFile(f); err != nil {
			return fmt.Errorf("%s %s: %v (client-go reads it whole)", from, props.Cut(f, 200), err)
		}
	}
	cfg, err := rules.Load()
	if err != nil {
		return nil
	}
	check := func(what, f string, show bool) error {
		if err := wire.RegularFile(f); err != nil {
			if !show {
				f = "(a key's)"
			}
			return fmt.Errorf("%s: %s %s: %v (client-go reads it whole)", from, what, props.Cut(f, 200), err)
		}
		return nil
	}
	for name, cl := range cfg.Clusters {
		if err := check(fmt.Sprintf("cluster %q: certificate-authority", props.Cut(name, 60)), cl.CertificateAuthority, true); err != nil {
			return err
		}
	}
	for name, a := range cfg.AuthInfos {
		user := fmt.Sprintf("user %q: ", props.Cut(name, 60))
		if err := check(user+"client-certificate", a.ClientCertificate, true); err != nil {
			return err
		}
		if err := check(user+"client-key", a.ClientKey, false); err != nil {
			return err
		}
		if err := check(user+"tokenFile", a.TokenFile, false); err != nil {
			return err
		}
	}
	return nil
}

// kubeconfigFrom names where the kubeconfig comes from.
func kubeconfigFrom(rules *clientcmd.ClientConfigLoadingRules) string {
	switch {
	case rules.ExplicitPath != "":
		return "kubernetes.kubeconfig"
	case os.Getenv(clientcmd.RecommendedConfigPathEnvVar) != "":
		return "$" + clientcmd.RecommendedConfigPathEnvVar
	}
	return "the default kubeconfig"
}

// kubeconfigError says in one line which kubeconfig and context were
// looked for, and why they cannot be used (client-go's own words for an
// empty configuration name an environment variable of its own instead).
func kubeconfigError(rules *clientcmd.ClientConfigLoadingRules, context string, err error) error {
	from := kubeconfigFrom(rules)
	var files []string
	missing := 0
	for _, f := range rules.GetLoadingPrecedence() {
		if _, serr := os.Stat(f); serr != nil {
			f += " (no such file)"
			missing++
		}
		files = append(files, f)
	}
	list := strings.Join(files, ", ")
	if len(files) > 1 {
		list = "[" + list + "]"
	}
	ctx := "its current context"
	if context != "" {
		ctx = fmt.Sprintf("context %q", props.Cut(context, 60))
	}
	why := oneLine(err.Error())
	if clientcmd.IsEmptyConfig(err) {
		why = "it names no cluster to use"
		if missing == len(files) {
			why = "no kubeconfig found"
		}
	}
	return fmt.Errorf("kubernetes: no usable kubeconfig: %s %s, %s: %s; give -p kubernetes.kubeconfig=FILE and -p kubernetes.context=NAME",
		from, props.Cut(list, 300), ctx, why)
}

func (k *kube) String() string {
	return fmt.Sprintf("Kubernetes Job %s/%s, image %s", k.namespace, k.name, k.image)
}

// lead: pulling nothing (the image is on the nodes), a pod starts in a few
// seconds; a late client says so in its result's warnings.
func (k *kube) lead() time.Duration { return 10 * time.Second }

func (k *kube) listen() string { return "127.0.0.1:0" }

// Labels of what a run creates.
const kubeLabel = "app.kubernetes.io/name"

// runAnnotation holds, on each object a run creates, the run's identity
// (coordinator.id): the cleanup deletes only an object that carries it.
const runAnnotation = "servbench.io/run"

// prepare creates the Secret: the run's secret and the coordinator's
// address as the pods reach it.
func (k *kube) prepare(ctx context.Context, j *job) error {
	k.mu.Lock()
	k.runID = j.id
	k.mu.Unlock()
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: k.name, Labels: map[string]string{kubeLabel: "servbench", "app.kubernetes.io/instance": k.name},
			Annotations: map[string]string{runAnnotation: j.id}},
		Type:       corev1.SecretTypeOpaque,
		StringData: map[string]string{"key": j.token, "url": k.podURL(j), "cert": j.pin},
	}
	err := k.create(ctx, k.client.core.Post().Namespace(k.namespace).Resource("secrets").Body(sec), &corev1.Secret{}, &k.madeSecret)
	if err != nil {
		return fmt.Errorf("kubernetes: create Secret %s/%s: %v", k.namespace, k.name, oneLine(err.Error()))
	}
	return nil
}

// unanswered reports whether err is a request the API server did not
// answer (a timeout, a connection lost) or answered without saying (a
// gateway's 504, a 500): what it asked may have been done. An answer
// (AlreadyExists, Forbidden) says it was not.
func unanswered(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return true
	}
	code := st.Status().Code // a gateway's 504, a server's 500: it may have been done
	return code == 0 || code >= 500
}

// loopbackURL reports whether the pods are to dial a loopback address.
func loopbackURL(url string) bool {
	host, _, err := net.SplitHostPort(strings.TrimPrefix(url, "https://"))
	return err == nil && loopback(host)
}

// loopback reports whether host names this machine's loopback.
func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// podURL is the coordinator's address as the pods dial it.
func (k *kube) podURL(j *job) string {
	if k.url != "" {
		return k.url
	}
	return j.url
}

// job is the Indexed Job of n clients.
func (k *kube) job(j *job) *batchv1.Job {
	labels := map[string]string{kubeLabel: "servbench", "app.kubernetes.io/instance": k.name}
	secretEnv := func(name, key string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: k.name}, Key: key}}}
	}
	job := indexedJob(k.name, j.n, labels, corev1.Container{
		Image: k.image, ImagePullPolicy: corev1.PullIfNotPresent,
		Args: []string{"client", "--client-index-from", "kubernetes"},
		Env:  []corev1.EnvVar{secretEnv(URLEnv, "url"), secretEnv(KeyEnv, "key"), secretEnv(CertEnv, "cert")},
	}, nil)
	job.Spec.Template.Spec.HostNetwork = loopbackURL(k.podURL(j))
	job.Annotations = map[string]string{runAnnotation: j.id}
	return job
}

func (k *kube) run(ctx context.Context, j *job) []error {
	ends := make([]error, j.n)
	fail := func(err error) []error {
		for i := range ends {
			ends[i] = err
		}
		return ends
	}
	err := k.create(ctx, k.client.batch.Post().Namespace(k.namespace).Resource("jobs").Body(k.job(j)), &batchv1.Job{}, &k.madeJob)
	if err != nil {
		return fail(fmt.Errorf("kubernetes: create Job %s/%s: %v", k.namespace, k.name, oneLine(err.Error())))
	}
	ended := make([]bool, j.n)
	placed := make([]string, j.n)
	tick := time.NewTicker(k.poll)
	defer tick.Stop()
	for left := j.n; left > 0; {
		select {
		case <-ctx.Done(): // told to stop and still running: the Job goes, its pods with it
			k.deleteJob(context.WithoutCancel(ctx))
			for i := range ends {
				if !ended[i] {
					ends[i] = errors.New("stopped: still running after it was told to stop")
				}
			}
			return ends
		case <-tick.C:
		}
		pods, err := k.pods(ctx, j.n)
		if err != nil {
			continue // the API server may be busy; the coordinator's timeout bounds the wait
		}
		for _, p := range pods {
			i, err := strconv.Atoi(p.Annotations[batchv1.JobCompletionIndexAnnotation])
			if err != nil || i < 0 || i >= j.n || ended[i] {
				continue
			}
			if where := podPlace(&p); where != placed[i] {
				placed[i] = where
				j.placed(i, where)
			}
			switch p.Status.Phase {
			case corev1.PodSucceeded:
				ended[i] = true
			case corev1.PodFailed:
				ended[i] = true
				ends[i] = fmt.Errorf("pod %s failed: %s", p.Name, podWhy(&p))
			default:
				continue
			}
			left--
			k.logs(ctx, &p, i, j)
			j.exited(i, ends[i])
		}
	}
	return ends
}

// pods lists the Job's pods, at most maxPods(n) of a Job of n (the list
// is read item by item: a list of millions of empty pods, a few MB, would
// be decoded into gigabytes), each poll bounded by ctx and pollTimeout.
func (k *kube) pods(ctx context.Context, n int) ([]corev1.Pod, error) {
	ctx, cancel := context.WithTimeout(ctx, pollTimeout)
	defer cancel()
	most := maxPods(n)
	raw, err := k.client.core.Get().Namespace(k.namespace).Resource("pods").
		Param("labelSelector", "batch.kubernetes.io/job-name="+k.name).Param("limit", strconv.Itoa(most)).DoRaw(quiet(ctx))
	if err != nil {
		return nil, err
	}
	return decodePods(raw, most)
}

// pollTimeout bounds each of the orchestrator's calls to the API server
// while it waits for the pods.
const pollTimeout = 10 * time.Second

// maxPods is the most pods a Job of n clients is taken to list: each
// index's pod, with room for pods the cluster replaced.
func maxPods(n int) int { return 2*n + 100 }

// decodePods reads a pod list's items, refusing more than most.
func decodePods(raw []byte, most int) ([]corev1.Pod, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("kubernetes: the pod list is not a JSON object")
	}
	var pods []corev1.Pod
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("kubernetes: the pod list: %v", err)
		}
		if key != "items" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fmt.Errorf("kubernetes: the pod list: %v", err)
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			if t == nil && err == nil {
				continue // "items": null
			}
			return nil, fmt.Errorf("kubernetes: the pod list's items are not a list")
		}
		for dec.More() {
			if len(pods) == most {
				return nil, fmt.Errorf("kubernetes: the pod list holds more than %d pods, the most a Job of this run's clients has: refused", most)
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("kubernetes: the pod list: %v", err)
			}
			if len(raw) > maxPodBytes {
				return nil, fmt.Errorf("kubernetes: the pod list holds a pod of %s, more than %s: refused", format.Bytes(int64(len(raw))), format.Bytes(maxPodBytes))
			}
			var p listedPod
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, fmt.Errorf("kubernetes: the pod list: %v", err)
			}
			pods = append(pods, p.pod())
		}
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("kubernetes: the pod list: %v", err)
		}
	}
	return pods, nil
}

// maxPodBytes bounds one listed pod's JSON (a pod's is some KB; one of
// 3,000,000 empty containers, 9 MB, decoded into gigabytes).
const maxPodBytes = 256 << 10

// listedPod is what the orchestrator reads of a listed pod: nothing else
// of it is decoded (a list of millions of containers is skipped).
type listedPod struct {
	Metadata struct {
		Name        string `json:"name"`
		Annotations struct {
			Index *string `json:"batch.kubernetes.io/job-completion-index"`
		} `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase             corev1.PodPhase `json:"phase"`
		Reason            string          `json:"reason"`
		Message           string          `json:"message"`
		ContainerStatuses []struct {
			State struct {
				Terminated *struct {
					ExitCode int32  `json:"exitCode"`
					Reason   string `json:"reason"`
				} `json:"terminated"`
			} `json:"state"`
		} `json:"containerStatuses"`
	} `json:"status"`
}

func (l *listedPod) pod() corev1.Pod {
	var p corev1.Pod
	p.Name = l.Metadata.Name
	if i := l.Metadata.Annotations.Index; i != nil {
		p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: *i}
	}
	p.Spec.NodeName = l.Spec.NodeName
	p.Status.Phase, p.Status.Reason, p.Status.Message = l.Status.Phase, l.Status.Reason, l.Status.Message
	for _, c := range l.Status.ContainerStatuses[:min(len(l.Status.ContainerStatuses), 8)] { // the first that ended says why
		var st corev1.ContainerStatus
		if t := c.State.Terminated; t != nil {
			st.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: t.ExitCode, Reason: t.Reason}
		}
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, st)
	}
	return p
}

// podPlace is "pod P on node N".
func podPlace(p *corev1.Pod) string {
	if p.Spec.NodeName == "" {
		return "pod " + p.Name
	}
	return "pod " + p.Name + " on node " + p.Spec.NodeName
}

// podWhy is why a pod failed: its container's end, or its own reason.
func podWhy(p *corev1.Pod) string {
	for _, c := range p.Status.ContainerStatuses {
		if t := c.State.Terminated; t != nil {
			return fmt.Sprintf("exit code %d %s", t.ExitCode, t.Reason)
		}
	}
	if p.Status.Reason != "" {
		return p.Status.Reason + " " + p.Status.Message
	}
	return "no reason given"
}

// logs passes a finished pod's output on as client i's (best effort: a
// cluster may keep no logs).
func (k *kube) logs(ctx context.Context, p *corev1.Pod, i int, j *job) {
	ctx, cancel := context.WithTimeout(ctx, pollTimeout)
	defer cancel()
	raw, err := k.client.core.Get().Namespace(k.namespace).Resource("pods").Name(p.Name).SubResource("log").Param("limitBytes", strconv.Itoa(1<<20)).DoRaw(quiet(ctx))
	if err != nil {
		return
	}
	for l := range strings.Lines(string(raw)) { // a line of any length (a Scanner stopped at 64 KiB, the rest lost)
		if l = strings.TrimRight(l, "\r\n"); strings.TrimSpace(l) != "" {
			j.say(i, l)
		}
	}
}

// deleteJob deletes the Job this run made and, in the background, its
// pods.
func (k *kube) deleteJob(ctx context.Context) error {
	k.mu.Lock()
	uid, maybe, run := k.madeJob.uid, k.madeJob.maybe, k.runID
	k.mu.Unlock()
	bg := metav1.DeletePropagationBackground
	err := k.deleteOwn(ctx, k.client.batch, "jobs", uid, maybe, run, &bg, func() metav1.Object { return &batchv1.Job{} })
	if err == nil {
		k.mu.Lock()
		k.madeJob = made{}
		k.mu.Unlock()
	}
	return err
}

// errNotThisRuns is an object of the run's name that another made (the
// user's, another run's), met where the run's create went unanswered.
var errNotThisRuns = errors.New("not this run's (its create went unanswered; one of that name is someone else's): not deleted")

// deleteOwn deletes the run's object of resource (uid, when its create
// was answered), by its UID, so that nothing else of its name is; when
// its create went unanswered (maybe) it reads the object first and
// deletes it only if it carries the run's annotation (errNotThisRuns
// otherwise). Nothing made, nothing asked.
func (k *kube) deleteOwn(ctx context.Context, client *restclient.RESTClient, resource string, uid types.UID, maybe bool, run string,
	propagation *metav1.DeletionPropagation, newObj func() metav1.Object) error {
	if uid == "" && !maybe {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if uid == "" {
		obj := newObj()
		err := client.Get().Namespace(k.namespace).Resource(resource).Name(k.name).Do(quiet(ctx)).Into(obj.(runtime.Object))
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		case run == "" || obj.GetAnnotations()[runAnnotation] != run:
			return errNotThisRuns
		}
		uid = obj.GetUID()
	}
	opts := &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: propagation}
	err := client.Delete().Namespace(k.namespace).Resource(resource).Name(k.name).Body(opts).Do(quiet(ctx)).Error()
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) { // gone, or another's by now
		return nil
	}
	return err
}

// cleanup deletes what the run created: the Job (its pods) and the
// Secret, never one of the same name that it did not create (the user's,
// another run's: its create was refused, or its answer lost).
func (k *kube) cleanup(ctx context.Context, j *job) {
	defer k.credDone()
	if err := k.deleteJob(ctx); err != nil {
		j.mu.Lock()
		fmt.Fprintf(j.stderr, "servbench: kubernetes: delete Job %s/%s: %v: it is left\n", k.namespace, k.name, oneLine(err.Error()))
		j.mu.Unlock()
	}
	k.mu.Lock()
	uid, maybe, run := k.madeSecret.uid, k.madeSecret.maybe, k.runID
	k.mu.Unlock()
	if err := k.deleteOwn(ctx, k.client.core, "secrets", uid, maybe, run, nil, func() metav1.Object { return &corev1.Secret{} }); err != nil {
		j.mu.Lock()
		fmt.Fprintf(j.stderr, "servbench: kubernetes: delete Secret %s/%s: %v: it is left\n", k.namespace, k.name, oneLine(err.Error()))
		j.mu.Unlock()
	}
}
