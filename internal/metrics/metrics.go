// Package metrics holds hermes's own named metrics and writes them in the
// Prometheus text exposition format. One *Set is built by the process's
// assembly and handed to whatever observes turns, tool calls, the gateway
// and the scheduler; nothing registers at init, so two Sets in one process
// (two tests, two embedded hermeses) never share a count.
//
// Label values come partly from outside hermes — a tool name the model
// made up, a model name a request sent — so every label value is escaped
// and each family keeps at most MaxSeries label sets: later ones are
// counted under the value "other" rather than growing the scrape without
// bound.
package metrics

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	vm "github.com/VictoriaMetrics/metrics"
)

// MaxSeries bounds the label sets of one metric family.
const MaxSeries = 256

// Other is the label value that stands for label sets past MaxSeries.
const Other = "other"

// Set is hermes's metrics. It is safe for concurrent use, and a nil
// *Set counts nothing, for the parts of hermes built without metrics.
type Set struct {
	s *vm.Set

	mu     sync.Mutex
	series map[string]int // label sets per family
	known  map[string]bool
	gauges map[string]func() float64
	usage  map[[2]string]*UsageTotal // by model and user
}

// New returns an empty Set.
func New() *Set {
	s := &Set{s: vm.NewSet(), series: map[string]int{}, known: map[string]bool{}, gauges: map[string]func() float64{},
		usage: map[[2]string]*UsageTotal{}}
	// The counters without labels show from the start, at 0, so an alert
	// on their rate has a series before the first event.
	for _, f := range []string{SchedulerFires, SchedulerCatchUp, SchedulerFailed, SpansDropped} {
		s.counter(0, f)
	}
	return s
}

// name builds family{k1="v1",...} from label pairs, escaping values, and
// falls back to every label "other" once the family has MaxSeries sets.
func (s *Set) name(family string, labels ...string) string {
	full := compose(family, labels, false)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known[full] {
		return full
	}
	if s.series[family] >= MaxSeries {
		return compose(family, labels, true)
	}
	s.series[family]++
	s.known[full] = true
	return full
}

// compose writes family{k="v",...}; other replaces every value with Other.
func compose(family string, labels []string, other bool) string {
	if len(labels) == 0 {
		return family
	}
	var b strings.Builder
	b.WriteString(family)
	b.WriteByte('{')
	for i := 0; i+1 < len(labels); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(labels[i])
		b.WriteString(`="`)
		v := labels[i+1]
		if other {
			v = Other
		}
		b.WriteString(escape(v))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// escape makes v a valid label value of the text format: backslash,
// double quote and line feed escaped, other control bytes dropped, and
// at most 128 bytes kept.
func escape(v string) string {
	if len(v) > 128 {
		v = v[:128]
	}
	var b strings.Builder
	for _, r := range v {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f || r == 0xfffd:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// counter adds n to family{labels}.
func (s *Set) counter(n uint64, family string, labels ...string) {
	if s == nil {
		return
	}
	s.s.GetOrCreateCounter(s.name(family, labels...)).Add(int(n))
}

// floatCounter adds f to family{labels}.
func (s *Set) floatCounter(f float64, family string, labels ...string) {
	if s == nil {
		return
	}
	s.s.GetOrCreateFloatCounter(s.name(family, labels...)).Add(f)
}

// histogram records d in seconds in family{labels}, with the buckets of
// latencies from 5 ms to 5 min.
func (s *Set) histogram(d time.Duration, family string, labels ...string) {
	if s == nil {
		return
	}
	s.s.GetOrCreatePrometheusHistogramExt(s.name(family, labels...), latencyBuckets).Update(d.Seconds())
}

// latencyBuckets are the upper bounds, in seconds, of the latency
// histograms: tools and models take from milliseconds to minutes.
var latencyBuckets = []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// Gauge registers a value read at every scrape, such as the length of a
// queue; f must be cheap and safe to call from any goroutine. Registering
// the same family and labels again replaces f: a gateway started again
// reports its new queues, not the old ones.
func (s *Set) Gauge(f func() float64, family string, labels ...string) {
	if s == nil {
		return
	}
	name := s.name(family, labels...)
	s.mu.Lock()
	_, had := s.gauges[name]
	s.gauges[name] = f
	s.mu.Unlock()
	if !had {
		s.s.NewGauge(name, func() float64 {
			s.mu.Lock()
			f := s.gauges[name]
			s.mu.Unlock()
			return f()
		})
	}
}

// WritePrometheus writes every metric of s, and the process's own (RSS,
// goroutines, CPU, open files), in the Prometheus text format.
func (s *Set) WritePrometheus(w io.Writer) {
	if s != nil {
		s.s.WritePrometheus(w)
	}
	vm.WriteProcessMetrics(w)
}

// ServeHTTP answers a scrape.
func (s *Set) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	s.WritePrometheus(w)
}
