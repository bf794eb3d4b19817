package ui

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"
)

// costDays is how many days the costs page charts.
const costDays = 30

// colour is the colour of a chart's i-th bar, in order of their cost.
func colour(i int) string {
	palette := [...]string{"#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6", "#dd4477", "#66aa00"}
	return palette[i%len(palette)]
}

// Chart geometry, in SVG units.
const (
	chartW, chartH = 720, 220
	barsLeft       = 60
)

// costsData is the costs page: a bar per day stacked by model, a bar per
// model, user and tenant, and the table behind them.
type costsData struct {
	Days                   []dayBar
	Models, Users, Tenants chart
	Ticks                  []tick
	Total                  float64
	Rows                   []Cost
	W, H                   int
	// SVGW and SVGH are the chart's size with the day labels.
	SVGW, SVGH int
}

// dayBar is one day's stacked bar.
type dayBar struct {
	Day string
	// Label is the day under the bar, on every fifth day.
	Label string
	X, W  string
	Parts []rect
	Total float64
}

// rect is one piece of a bar.
type rect struct {
	Y, H, Fill, Label string
}

// chart is a bar per model, user or tenant: its total over the days
// charted.
type chart struct {
	Bars []totalBar
	// H is the chart's height.
	H int
}

// totalBar is one model's, user's or tenant's total.
type totalBar struct {
	Name        string
	Y, W        string
	Fill, Label string
	CostUSD     float64
	Tokens      int64
}

// tick is a line of the y axis.
type tick struct {
	Y, Label string
}

// costs charts the cost per day and model of the last costDays days, as
// SVG drawn here, so the page needs no script.
func (d *Dashboard) costs(w http.ResponseWriter, r *http.Request, csrf string) {
	if d.opt.Costs == nil {
		d.render(w, r, http.StatusOK, "costs", page{Title: "Costs", CSRF: csrf, Notice: "This hermes does not count costs."})
		return
	}
	today := d.opt.Clock.Now().UTC().Truncate(24 * time.Hour)
	since := today.AddDate(0, 0, -(costDays - 1))
	rows, err := d.opt.Costs(r.Context(), since)
	if err != nil {
		d.fail(w, r, "costs", csrf, err)
		return
	}
	d.render(w, r, http.StatusOK, "costs", page{Title: "Costs", CSRF: csrf, Data: chartCosts(rows, since)})
}

// chartCosts lays the rows out as the page's two charts.
func chartCosts(rows []Cost, since time.Time) costsData {
	data := costsData{Rows: rows, W: chartW, H: chartH, SVGW: chartW + 30, SVGH: chartH + 25}
	byDay := map[string]map[string]float64{}
	for _, c := range rows {
		day := c.Day.UTC().Format(time.DateOnly)
		if byDay[day] == nil {
			byDay[day] = map[string]float64{}
		}
		byDay[day][c.Model] += c.CostUSD
		data.Total += c.CostUSD
	}
	data.Models = totals(rows, func(c Cost) string { return cmp.Or(c.Model, "(none)") })
	data.Users = totals(rows, func(c Cost) string { return cmp.Or(c.User, "(local owner)") })
	data.Tenants = totals(rows, func(c Cost) string { return cmp.Or(c.Tenant, "(none)") })
	fill := map[string]string{}
	var models []string
	for _, b := range data.Models.Bars {
		fill[b.Name] = b.Fill
		models = append(models, b.Name)
	}
	var top float64
	for _, day := range byDay {
		var sum float64
		for _, v := range day {
			sum += v
		}
		top = max(top, sum)
	}
	if top == 0 {
		top = 1
	}
	slot := float64(chartW-barsLeft) / costDays
	for i := range costDays {
		day := since.AddDate(0, 0, i).Format(time.DateOnly)
		b := dayBar{Day: day, X: f1(barsLeft + float64(i)*slot + 1), W: f1(slot - 2)}
		if i%5 == 0 || i == costDays-1 {
			b.Label = day[5:]
		}
		y := float64(chartH)
		for _, m := range models {
			v := byDay[day][modelKey(m)]
			if v <= 0 {
				continue
			}
			h := v / top * (chartH - 10)
			y -= h
			b.Parts = append(b.Parts, rect{Y: f1(y), H: f1(h), Fill: fill[m], Label: fmt.Sprintf("%s %s: %s", day, m, usd(v))})
			b.Total += v
		}
		data.Days = append(data.Days, b)
	}
	for i := range 5 {
		v := top * float64(i) / 4
		data.Ticks = append(data.Ticks, tick{Y: f1(chartH - v/top*(chartH-10)), Label: usd(v)})
	}
	return data
}

// modelKey is the model of a chart's name for it.
func modelKey(name string) string {
	if name == "(none)" {
		return ""
	}
	return name
}

// totals sums the rows by key into a bar each, the costliest first.
func totals(rows []Cost, key func(Cost) string) chart {
	by := map[string]*totalBar{}
	for _, c := range rows {
		k := key(c)
		b := by[k]
		if b == nil {
			b = &totalBar{Name: k}
			by[k] = b
		}
		b.CostUSD += c.CostUSD
		b.Tokens += c.Tokens
	}
	names := slices.SortedFunc(maps.Keys(by), func(a, b string) int {
		return cmp.Or(cmp.Compare(by[b].CostUSD, by[a].CostUSD), cmp.Compare(a, b))
	})
	var most float64
	for _, b := range by {
		most = max(most, b.CostUSD)
	}
	out := chart{H: max(len(names), 1) * 24}
	for i, n := range names {
		b := by[n]
		w := 2.0
		if most > 0 {
			w = max(b.CostUSD/most*(chartW-260), 2)
		}
		b.Y, b.W, b.Fill = fmt.Sprint(i*24), f1(w), colour(i)
		b.Label = fmt.Sprintf("%s · %d tokens", usd(b.CostUSD), b.Tokens)
		out.Bars = append(out.Bars, *b)
	}
	return out
}

// f1 writes an SVG coordinate.
func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
