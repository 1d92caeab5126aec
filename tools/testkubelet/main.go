// Command testkubelet is the node of servbench's Kubernetes tests: a small
// kubelet that registers one Ready node with a real API server, watches
// for the pods the real scheduler puts on it, and runs each under Docker
// with its pod's spec (image, command, arguments, environment from values,
// Secrets and the pod's fields, the host network), reporting their phase
// and exit codes back to the API server and removing the containers of
// deleted pods. It stands in for a kubelet with containerd, runc and CNI,
// which needs a pause image and a container registry this machine has not.
//
// It supports what servbench's Jobs use: one container a pod, no volumes
// but those Kubernetes adds (service account tokens, which it ignores);
// a pod it cannot run fails with the reason.
//
// usage: testkubelet --kubeconfig FILE --node NAME   (DOCKER_HOST: the Docker to use)
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the API server's kubeconfig")
	node := flag.String("node", "servbench-node", "the node's name")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	k := &kubelet{client: client, node: *node, pods: map[types.UID]*pod{}}
	if err := k.register(ctx); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "testkubelet: node %s ready\n", k.node)
	k.loop(ctx)
	for _, p := range k.pods {
		docker("rm", "--force", p.container)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "testkubelet: %v\n", err)
	os.Exit(1)
}

type kubelet struct {
	client kubernetes.Interface
	node   string
	pods   map[types.UID]*pod
}

// pod is a pod this kubelet started.
type pod struct {
	container string
	started   metav1.Time
	done      bool
}

// register creates the node, Ready, without the taint new nodes get until
// a kubelet says they are ready.
func (k *kubelet) register(ctx context.Context) error {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: k.node, Labels: map[string]string{"kubernetes.io/hostname": k.node, "kubernetes.io/os": "linux"}}}
	if _, err := k.client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create node: %w", err)
	}
	for range 50 {
		cur, err := k.client.CoreV1().Nodes().Get(ctx, k.node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Taints = nil
		if cur, err = k.client.CoreV1().Nodes().Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			if apierrors.IsConflict(err) {
				continue
			}
			return fmt.Errorf("untaint node: %w", err)
		}
		now := metav1.Now()
		res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}
		cur.Status = corev1.NodeStatus{
			Capacity: res, Allocatable: res,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: now, LastTransitionTime: now}},
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: k.node}},
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.34.4", OperatingSystem: "linux", Architecture: "amd64", ContainerRuntimeVersion: "docker://test"},
		}
		if _, err := k.client.CoreV1().Nodes().UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil {
			if apierrors.IsConflict(err) {
				continue
			}
			return fmt.Errorf("node status: %w", err)
		}
		return nil
	}
	return fmt.Errorf("node %s: too many conflicts", k.node)
}

// loop follows the node's pods until ctx ends.
func (k *kubelet) loop(ctx context.Context) {
	t := time.NewTicker(300 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		list, err := k.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + k.node})
		if err != nil {
			continue
		}
		seen := map[types.UID]bool{}
		for i := range list.Items {
			p := &list.Items[i]
			seen[p.UID] = true
			k.sync(ctx, p)
		}
		for uid, p := range k.pods { // pods gone from the API: their containers go too
			if !seen[uid] {
				docker("rm", "--force", p.container)
				delete(k.pods, uid)
			}
		}
	}
}

// sync moves one pod along: start it, report its end, or remove it.
func (k *kubelet) sync(ctx context.Context, p *corev1.Pod) {
	mine := k.pods[p.UID]
	if p.DeletionTimestamp != nil {
		if mine != nil {
			docker("rm", "--force", mine.container)
			delete(k.pods, p.UID)
		}
		zero := int64(0)
		k.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &p.UID}})
		return
	}
	switch {
	case mine == nil && p.Status.Phase == corev1.PodPending:
		k.start(ctx, p)
	case mine != nil && !mine.done:
		k.check(ctx, p, mine)
	}
}

var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9_.-]`)

// start runs the pod's container under Docker.
func (k *kubelet) start(ctx context.Context, p *corev1.Pod) {
	if len(p.Spec.Containers) != 1 || len(p.Spec.InitContainers) > 0 {
		k.status(ctx, p, corev1.PodFailed, "Unsupported", "testkubelet runs pods of one container", nil)
		return
	}
	c := p.Spec.Containers[0]
	env, err := k.env(ctx, p, c)
	if err != nil {
		k.status(ctx, p, corev1.PodFailed, "CreateContainerConfigError", err.Error(), nil)
		return
	}
	dir, err := os.MkdirTemp("", "testkubelet-")
	if err != nil {
		k.status(ctx, p, corev1.PodFailed, "CreateContainerError", err.Error(), nil)
		return
	}
	defer os.RemoveAll(dir)
	envFile := filepath.Join(dir, "env") // not on the command line: it may hold a Secret's values
	if err := os.WriteFile(envFile, []byte(strings.Join(env, "\n")+"\n"), 0o600); err != nil {
		k.status(ctx, p, corev1.PodFailed, "CreateContainerError", err.Error(), nil)
		return
	}
	name := unsafeName.ReplaceAllString(fmt.Sprintf("k8s_%s_%s_%s", p.Namespace, p.Name, string(p.UID)[:8]), "_")
	args := []string{"run", "--detach", "--name", name, "--label", "servbench.testkubelet.pod=" + string(p.UID), "--env-file", envFile}
	if p.Spec.HostNetwork {
		args = append(args, "--network", "host")
	} else {
		args = append(args, "--network", "none") // no pod network here
	}
	if len(c.Command) > 0 {
		args = append(args, "--entrypoint", c.Command[0])
	}
	args = append(args, c.Image)
	if len(c.Command) > 1 {
		args = append(args, c.Command[1:]...)
	}
	args = append(args, c.Args...)
	if _, err := docker(args...); err != nil {
		k.status(ctx, p, corev1.PodFailed, "CreateContainerError", err.Error(), nil)
		return
	}
	mine := &pod{container: name, started: metav1.Now()}
	k.pods[p.UID] = mine
	k.status(ctx, p, corev1.PodRunning, "", "", &corev1.ContainerStatus{Name: c.Name, Image: c.Image, Ready: true, Started: ptr(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: mine.started}}})
}

func ptr[T any](v T) *T { return &v }

// env is the container's environment as NAME=VALUE lines.
func (k *kubelet) env(ctx context.Context, p *corev1.Pod, c corev1.Container) ([]string, error) {
	var out []string
	for _, e := range c.Env {
		v := e.Value
		switch {
		case e.ValueFrom == nil:
		case e.ValueFrom.SecretKeyRef != nil:
			r := e.ValueFrom.SecretKeyRef
			s, err := k.client.CoreV1().Secrets(p.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("env %s: secret %s: %w", e.Name, r.Name, err)
			}
			b, ok := s.Data[r.Key]
			if !ok {
				return nil, fmt.Errorf("env %s: secret %s has no key %s", e.Name, r.Name, r.Key)
			}
			v = string(b)
		case e.ValueFrom.FieldRef != nil:
			var ok bool
			if v, ok = field(p, e.ValueFrom.FieldRef.FieldPath); !ok {
				return nil, fmt.Errorf("env %s: field %s is not supported", e.Name, e.ValueFrom.FieldRef.FieldPath)
			}
		default:
			return nil, fmt.Errorf("env %s: only values, Secrets and pod fields are supported", e.Name)
		}
		if strings.ContainsAny(v, "\n\r") {
			return nil, fmt.Errorf("env %s: a value of several lines is not supported", e.Name)
		}
		out = append(out, e.Name+"="+v)
	}
	return out, nil
}

var annotationRef = regexp.MustCompile(`^metadata\.(annotations|labels)\['([^']+)'\]$`)

// field is a pod field an environment variable refers to.
func field(p *corev1.Pod, path string) (string, bool) {
	switch path {
	case "metadata.name":
		return p.Name, true
	case "metadata.namespace":
		return p.Namespace, true
	case "spec.nodeName":
		return p.Spec.NodeName, true
	case "status.podIP", "status.hostIP":
		return "127.0.0.1", true
	}
	if m := annotationRef.FindStringSubmatch(path); m != nil {
		if m[1] == "annotations" {
			return p.Annotations[m[2]], true
		}
		return p.Labels[m[2]], true
	}
	return "", false
}

// check reports a container that ended, and removes it.
func (k *kubelet) check(ctx context.Context, p *corev1.Pod, mine *pod) {
	out, err := docker("inspect", "--format", "{{.State.Running}} {{.State.ExitCode}}", mine.container)
	if err != nil {
		return
	}
	f := strings.Fields(out)
	if len(f) != 2 || f[0] != "false" {
		return
	}
	code, _ := strconv.Atoi(f[1])
	phase, reason := corev1.PodSucceeded, "Completed"
	if code != 0 {
		phase, reason = corev1.PodFailed, "Error"
	}
	c := p.Spec.Containers[0]
	cs := &corev1.ContainerStatus{Name: c.Name, Image: c.Image, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: int32(code), Reason: reason, StartedAt: mine.started, FinishedAt: metav1.Now()}}}
	if k.status(ctx, p, phase, "", "", cs) == nil {
		mine.done = true
		docker("rm", "--force", mine.container)
	}
}

// status writes the pod's phase and its container's state.
func (k *kubelet) status(ctx context.Context, p *corev1.Pod, phase corev1.PodPhase, reason, msg string, cs *corev1.ContainerStatus) error {
	q := p.DeepCopy()
	q.Status.Phase, q.Status.Reason, q.Status.Message = phase, reason, msg
	q.Status.HostIP, q.Status.PodIP = "127.0.0.1", "127.0.0.1"
	if q.Status.StartTime == nil {
		now := metav1.Now()
		q.Status.StartTime = &now
	}
	if cs != nil {
		q.Status.ContainerStatuses = []corev1.ContainerStatus{*cs}
	}
	ready := corev1.ConditionFalse
	if phase == corev1.PodRunning {
		ready = corev1.ConditionTrue
	}
	q.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.Now()}}
	_, err := k.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, q, metav1.UpdateOptions{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "testkubelet: pod %s/%s: status %s: %v\n", p.Namespace, p.Name, phase, err)
	}
	return err
}

// docker runs the docker command (DOCKER_HOST from the environment).
func docker(args ...string) (string, error) {
	var out, errb bytes.Buffer
	c := exec.Command("docker", args...)
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("docker %s: %v: %s", args[0], err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}
