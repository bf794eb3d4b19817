package openai

import (
	"encoding/json"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// responsesStreamItem is one output item of a streamed reply being
// assembled from its deltas.
type responsesStreamItem struct {
	// index is the item's output_index, -1 when the server sent none.
	index int
	item  responsesItem
	// text, reasoning and args collect the deltas.
	text, reasoning, args strings.Builder
	// call is the item's position among the reply's function calls, the
	// Index of its EventToolCall fragments.
	call int
	// announced and streamed record whether the caller has seen the call's
	// id and name, and any delta, so output_item.done can make up for a
	// server that sent no deltas.
	announced, streamed bool
}

// item finds the item an event refers to: by item id, else by output
// index, else (for a server that sends neither) the latest item of the
// event's type. It creates the item, of that type, when the server skipped
// output_item.added.
func (p *responsesStream) item(id string, index *int, typ string) *responsesStreamItem {
	for i := len(p.items) - 1; i >= 0; i-- {
		it := p.items[i]
		switch {
		case id != "" && it.item.ID == id,
			id == "" && index != nil && it.index == *index,
			id == "" && index == nil && it.item.Type == typ:
			return it
		}
	}
	if id != "" && index != nil {
		// An id the adapter has not seen, on an index it has: a server
		// that left the id out of output_item.added.
		for i := len(p.items) - 1; i >= 0; i-- {
			if it := p.items[i]; it.index == *index && it.item.ID == "" {
				it.item.ID = id
				return it
			}
		}
	}
	return p.add(id, index, typ)
}

// add starts a new item.
func (p *responsesStream) add(id string, index *int, typ string) *responsesStreamItem {
	it := &responsesStreamItem{index: -1, item: responsesItem{Type: typ, ID: id}}
	if index != nil {
		it.index = *index
	}
	if typ == "function_call" {
		it.call = p.calls
		p.calls++
	}
	p.budget.Part()
	p.items = append(p.items, it)
	return it
}

// responsesMergeItem returns next with the identifying fields it lacks
// taken from prev: output_item.done is authoritative for content, but a
// careless server may leave out what output_item.added already said.
func responsesMergeItem(prev, next responsesItem) responsesItem {
	if next.Type == "" {
		next.Type = prev.Type
	}
	if next.ID == "" {
		next.ID = prev.ID
	}
	if next.CallID == "" {
		next.CallID = prev.CallID
	}
	if next.Name == "" {
		next.Name = prev.Name
	}
	if next.EncryptedContent == "" {
		next.EncryptedContent = prev.EncryptedContent
	}
	if llm.ArgumentsText(next.Arguments) == "" {
		next.Arguments = prev.Arguments
	}
	return next
}

// final returns the item as complete as it is: the server's own content
// where it sent one, and otherwise what the deltas assembled.
func (it *responsesStreamItem) final() responsesItem {
	out := it.item
	switch out.Type {
	case "message":
		if out.text() == "" && it.text.Len() > 0 {
			out.Content = responsesParts{{Type: "output_text", Text: it.text.String()}}
		}
	case "reasoning":
		if out.reasoning() == "" && it.reasoning.Len() > 0 {
			out.Summary = responsesParts{{Type: "summary_text", Text: it.reasoning.String()}}
		}
	case "function_call":
		if llm.ArgumentsText(out.Arguments) == "" && it.args.Len() > 0 {
			out.Arguments, _ = json.Marshal(it.args.String())
		}
	}
	return out
}

// assembled returns the streamed items in the order they arrived.
func (p *responsesStream) assembled() []responsesItem {
	out := make([]responsesItem, 0, len(p.items))
	for _, it := range p.items {
		out = append(out, it.final())
	}
	return out
}
