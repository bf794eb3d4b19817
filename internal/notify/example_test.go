package notify_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hermes-go/hermes/internal/notify"
)

// A chain whose only remote target has no server behind it: the message
// still lands in the local file that ends every chain.
func ExampleNotifier_Deliver() {
	home, _ := os.MkdirTemp("", "hermes")
	defer os.RemoveAll(home)
	n := notify.New(notify.Config{Home: home, Backoff: []time.Duration{}})
	chain, err := n.ParseChain([]string{"webhook:http://127.0.0.1:1/hook?token=s3cret"})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := n.Deliver(context.Background(), chain, notify.Message{Title: "日报", Text: "all green", Job: "daily"})
	fmt.Println("delivered to:", rep.Delivered)
	fmt.Println("first try:", rep.Attempts[0].Target, rep.Attempts[0].Status)
	// Output:
	// delivered to: local
	// first try: webhook:http://127.0.0.1:1/**** failed
}
