package dynamodb

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

// YCSB's DynamoDB binding builds its client with a new ClientConfiguration
// of the AWS SDK for Java 1.11: the SDK's default retry policy
// (PredefinedRetryPolicies.DEFAULT, read from YCSB's jars): at most 3
// retries of a throttled request, a 5xx answer or a broken connection;
// before retry k (from 0), a throttled request waits an "equal jitter"
// delay, half of min(20 s, 500 ms·2^k) plus a random share of the other
// half, anything else a "full jitter" one, a random share of min(20 s,
// 100 ms·2^k); no client-side quota of retries. These are the same.
const (
	ycsbRetries         = 3
	ycsbBaseDelay       = 100 * time.Millisecond
	ycsbThrottledDelay  = 500 * time.Millisecond
	ycsbMaxBackoffDelay = 20 * time.Second
)

// retryCount counts, for this client, the requests sent again and those of
// them sent again because DynamoDB throttled them: apart from failures,
// which count only what failed after the last retry.
type retryCount struct {
	all, throttled atomic.Int64
}

// retryer is the SDK's standard retryer with YCSB's policy, counting.
type retryer struct {
	*retry.Standard
	throttle retry.IsErrorThrottle
	n        *retryCount
}

func newRetryer(max int, n *retryCount) aws.Retryer {
	throttle := retry.IsErrorThrottles(retry.DefaultThrottles)
	std := retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = max + 1
		o.MaxBackoff = ycsbMaxBackoffDelay
		o.RateLimiter = ratelimit.None
		o.Backoff = retry.BackoffDelayerFunc(func(attempt int, err error) (time.Duration, error) {
			return ycsbDelay(attempt-1, throttle.IsErrorThrottle(err).Bool(), rand.Float64()), nil
		})
	})
	return &retryer{Standard: std, throttle: throttle, n: n}
}

// ycsbDelay is the wait before retry k (from 0) of the AWS SDK for Java's
// default policy, with r a uniform random number in [0, 1).
func ycsbDelay(k int, throttled bool, r float64) time.Duration {
	base := ycsbBaseDelay
	if throttled {
		base = ycsbThrottledDelay
	}
	d := ycsbMaxBackoffDelay
	if k < 30 && base<<k < ycsbMaxBackoffDelay {
		d = base << k
	}
	if throttled {
		return d/2 + time.Duration(r*float64(d/2))
	}
	return time.Duration(r * float64(d))
}

// GetRetryToken counts a retry about to be made.
func (r *retryer) GetRetryToken(ctx context.Context, opErr error) (func(error) error, error) {
	release, err := r.Standard.GetRetryToken(ctx, opErr)
	if err == nil {
		r.n.all.Add(1)
		if r.throttle.IsErrorThrottle(opErr).Bool() {
			r.n.throttled.Add(1)
		}
	}
	return release, err
}
