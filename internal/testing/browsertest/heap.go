package browsertest

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// HeapUsage is the page's JavaScript heap after a forced, full garbage collection, in
// bytes: what is still reachable (Used), and array buffers' and external strings'
// backing stores (a wasm module's linear memory is one), which V8 counts apart.
type HeapUsage struct {
	Used, Total, Backing float64
}

// CollectGarbage forces full garbage collections in the page (CDP
// HeapProfiler.collectGarbage, twice: finalizers and weak references free more on the
// second) and returns the heap usage after them. For soak benchmarks: compare two
// readings, never time them. Chromium only (the DevTools protocol).
func (p *Page) CollectGarbage(ctx context.Context) (HeapUsage, error) {
	t, ok := p.tab.(*chromiumTab)
	if !ok {
		return HeapUsage{}, fmt.Errorf("browsertest: CollectGarbage needs Chromium, not %s", p.Engine)
	}
	c, cancel := t.bound(ctx)
	defer cancel()
	for range 2 {
		if _, err := chromedp.Call(c, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
			return HeapUsage{}, err
		}
	}
	r, err := chromedp.Call(c, runtime.GetHeapUsage, cdp.Empty{})
	if err != nil {
		return HeapUsage{}, err
	}
	return HeapUsage{Used: r.UsedSize, Total: r.TotalSize, Backing: r.BackingStorageSize}, nil
}
