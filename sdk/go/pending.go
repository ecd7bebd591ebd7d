package dauth

import (
	"context"
	"sync"
	"time"
)

// pending is a slot-info call waiting for its callback (spec, States › Pending backend
// authorization request). It is waiting until its callback is claimed, which stops the timeout,
// then exchanging; it ends once, with a slot or an error.
type pending struct {
	state string
	// ctx carries the call's HTTP requests; it is cancelled when the call fails or is closed.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	claimed bool
	timer   *time.Timer
	slot    *SlotInfo
	err     error
}

// finish ends the call unless it already ended; the first outcome wins.
func (p *pending) finish(slot *SlotInfo, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishLocked(slot, err)
}

func (p *pending) finishLocked(slot *SlotInfo, err error) {
	select {
	case <-p.done:
		return
	default:
	}
	p.slot, p.err = slot, err
	close(p.done)
	p.timer.Stop()
	// A failure stops what the call still has in flight. A success does not: authorize's own answer
	// may still be on its way (the callback and the exchange can beat it), and cancelling it would
	// turn the slot the call already has into context.Canceled.
	if err != nil {
		p.cancel()
	}
}

// claim takes the callback: true once, while the call is waiting.
func (p *pending) claim() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		return false
	default:
	}
	if p.claimed {
		return false
	}
	p.claimed = true
	p.timer.Stop()
	return true
}

// failure returns the error the call ended with, or nil while it runs or if it succeeded.
func (p *pending) failure() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

type pendingSet struct {
	mu       sync.Mutex
	requests map[string]*pending
}

// open registers a call; it fails with ErrCallbackTimeout unless claimed within timeout.
func (s *pendingSet) open(parent context.Context, state string, timeout time.Duration) *pending {
	ctx, cancel := context.WithCancel(parent)
	p := &pending{state: state, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	p.mu.Lock()
	p.timer = time.AfterFunc(timeout, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.claimed {
			p.finishLocked(nil, ErrCallbackTimeout)
		}
	})
	p.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.requests == nil {
		s.requests = make(map[string]*pending)
	}
	s.requests[state] = p
	return p
}

func (s *pendingSet) get(state string) *pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[state]
}

// close forgets a call and stops whatever it still has in flight.
func (s *pendingSet) close(p *pending) {
	s.mu.Lock()
	delete(s.requests, p.state)
	s.mu.Unlock()
	p.mu.Lock()
	p.timer.Stop()
	p.mu.Unlock()
	p.cancel()
}

func (s *pendingSet) failAll(err error) {
	s.mu.Lock()
	requests := make([]*pending, 0, len(s.requests))
	for _, p := range s.requests {
		requests = append(requests, p)
	}
	s.mu.Unlock()
	for _, p := range requests {
		p.finish(nil, err)
	}
}
