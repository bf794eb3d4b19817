// Package netguard keeps the URLs the model makes hermes fetch away from
// the machine's own services and from cloud metadata endpoints: the
// server-side request forgery a model that can name any URL could
// otherwise commit.
//
// Guard.CheckURL gives an early, readable refusal; Guard.Client is the
// guarded HTTP client every outbound fetch uses, which checks the address
// actually connected to, after DNS, on every connection and redirect. Its
// users are tools/httpreq, tools/browser, tools/declared (http tools), and
// app, which gives the web tools the guarded client.
package netguard
