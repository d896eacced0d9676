package learn

import (
	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// LoadWithin loads the data file path within what e's memory budget leaves
// (data.WithMemoryLimit: data over it are refused with a *data.LimitError)
// and charges the loaded data to the budget (e.Release(ds.Bytes()) gives
// them back). Across e's ranks, each rank loads its block of the rows
// (data.WithShard), which may be empty; in one process a file without
// examples is an error.
func LoadWithin(e *engine.Engine, path string, opts ...data.Option) (*data.Dataset, error) {
	opts = append(opts, data.WithMemoryLimit(max(e.Available(), 1)))
	g := e.Group()
	if g.Sharded() {
		opts = append(opts, data.WithShard(g.Rank(), g.Size()))
	}
	ds, err := data.Load(path, opts...)
	if err != nil {
		return nil, err
	}
	if ds.Len() == 0 && !g.Sharded() {
		return nil, pursuit.BadInputf("%s: no examples", path)
	}
	if err := e.Hold("the data of "+path, ds.Bytes()); err != nil {
		return nil, err
	}
	return ds, nil
}
