package email_test

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/gateway/email"
)

// An adapter for a mailbox at a provider: IMAP over TLS, SMTP submission
// with STARTTLS. New checks the options and connects to nothing.
func ExampleNew() {
	a, err := email.New(email.Options{
		IMAP:     email.Server{Addr: "imap.example.com:993", TLS: email.ImplicitTLS},
		SMTP:     email.Server{Addr: "smtp.example.com:587", TLS: email.StartTLS},
		Username: "hermes@example.com",
		Password: "app-password",
		Address:  "hermes@example.com",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	caps := a.Caps()
	fmt.Println(a.Name(), caps.FinalOnly, caps.CanEdit, caps.Buttons)

	_, err = email.New(email.Options{IMAP: email.Server{Addr: "imap.example.com", TLS: email.ImplicitTLS}})
	fmt.Println(err)
	// Output:
	// email true false false
	// email: imap address "imap.example.com" is not host:port; give the server as mail.example.com:993
}
