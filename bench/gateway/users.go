package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
)

// class is what kind of chat a message was written in, for the figures.
type class int

const (
	classDM class = iota
	classGroup
	classFlood // a chat under flood control for part of the run
	classes
)

func (c class) String() string {
	return [...]string{"direct messages", "groups (with a mention)", "chats flooded for a while"}[c]
}

// user is one simulated Telegram user and what they will write.
type user struct {
	who  telegramtest.User
	chat int64 // their private chat, or the group they write in
	// at are the simulated times of their messages, in order.
	at    []time.Duration
	class class
}

// message is one message a user wrote, and what came of it.
type message struct {
	tok    string
	update int
	class  class
	// done is closed when the chat shows the whole reply.
	done <-chan struct{}
}

// plan is who writes what, and when.
type plan struct {
	users []user
	// floodChats are put under flood control from floodAt for floodFor.
	floodChats []int64
	total      int
}

// planOptions shape the simulated users.
type planOptions struct {
	users, messages int
	// groupSize is how many users share a group; groupShare is the part
	// of the users who write in groups.
	groupSize  int
	groupShare float64
	floodChats int
	span       time.Duration
	seed       uint64
}

// makePlan spreads the messages over the users (each writes at least
// once) and over the span, uniformly at random from seed, so every run
// with the same flags writes the same things at the same times.
func makePlan(o planOptions) plan {
	rng := rand.New(rand.NewPCG(o.seed, 0x9e3779b97f4a7c15))
	p := plan{users: make([]user, o.users), total: max(o.messages, o.users)}
	grouped := int(float64(o.users) * o.groupShare)
	for i := range p.users {
		id := int64(100000 + i)
		u := user{who: telegramtest.User{ID: id, FirstName: fmt.Sprintf("User %d", i), Username: fmt.Sprintf("user%d", i)}, chat: id}
		if i < grouped && o.groupSize > 0 {
			u.chat, u.class = -1000000-int64(i/o.groupSize), classGroup
		}
		p.users[i] = u
	}
	for i := range p.total {
		u := &p.users[i%len(p.users)]
		if i >= len(p.users) {
			u = &p.users[rng.IntN(len(p.users))]
		}
		u.at = append(u.at, time.Duration(rng.Int64N(int64(o.span))))
	}
	// The flooded chats: direct messages of the last users, and the
	// last group when there are two or more.
	for i := len(p.users) - 1; i >= 0 && len(p.floodChats) < o.floodChats; i-- {
		if p.users[i].class == classDM {
			p.floodChats = append(p.floodChats, p.users[i].chat)
		}
	}
	if o.floodChats > 0 && grouped > 0 && p.users[grouped-1].chat != p.users[0].chat {
		p.floodChats = append(p.floodChats, p.users[grouped-1].chat)
	}
	for i := range p.users {
		u := &p.users[i]
		slices.Sort(u.at)
		if slices.Contains(p.floodChats, u.chat) {
			u.class = classFlood
		}
	}
	return p
}

// text is what a user writes: the token first, a mention in groups.
func (u *user) text(tok string) string {
	if u.chat < 0 {
		return "@hermes_bot " + tok + ": what do you make of this?"
	}
	return tok + ": what do you make of this?"
}
