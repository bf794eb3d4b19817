package netguard

import (
	"net"
	"net/netip"
	"strings"
)

// nonPublic lists the ranges, beyond what netip.Addr's own predicates
// cover, that are not the public internet. Each is refused with its
// description unless the guard allows private addresses.
var nonPublic = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), `a "this network" address`},
	{netip.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT (shared) address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol assignment address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a network benchmarking address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved or broadcast address"},
	{netip.MustParsePrefix("::/96"), "an IPv4-compatible IPv6 address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local IPv6 address"},
}

// Prefixes whose addresses embed an IPv4 address that a router will
// reach: NAT64 (the last 32 bits) and 6to4 (bits 16 to 48).
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// AddrKind describes why a is not a public unicast address ("a loopback
// address", "a private (RFC 1918) address"), or returns "" for a public
// one. IPv4-mapped, NAT64 and 6to4 IPv6 forms are judged by the IPv4
// address they carry, so ::ffff:127.0.0.1 is loopback too.
func AddrKind(a netip.Addr) string {
	a = a.WithZone("").Unmap()
	if !a.IsValid() {
		return "an invalid address"
	}
	if a.Is6() && (nat64.Contains(a) || sixToFour.Contains(a)) {
		b := a.As16()
		var v4 [4]byte
		if nat64.Contains(a) {
			copy(v4[:], b[12:16])
		} else {
			copy(v4[:], b[2:6])
		}
		if k := AddrKind(netip.AddrFrom4(v4)); k != "" {
			return "an IPv6 address embedding " + netip.AddrFrom4(v4).String() + ", " + k
		}
		return ""
	}
	switch {
	case a.IsUnspecified():
		return "an unspecified address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsPrivate() && a.Is4():
		return "a private (RFC 1918) address"
	case a.IsPrivate():
		return "a unique-local IPv6 address"
	case a.IsLinkLocalUnicast():
		return "a link-local address"
	case a.IsMulticast():
		return "a multicast address"
	}
	for _, r := range nonPublic {
		if r.prefix.Contains(a) {
			return r.kind
		}
	}
	return ""
}

// metadataAddrs are the instance metadata services of the big clouds:
// AWS, GCP, Azure, OpenStack and DigitalOcean at 169.254.169.254, AWS over
// IPv6, Oracle at 192.0.0.192, Alibaba at 100.100.100.200.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("169.254.170.2"), // ECS task credentials
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("192.0.0.192"),
	netip.MustParseAddr("100.100.100.200"),
}

func isMetadataAddr(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	for _, m := range metadataAddrs {
		if a == m {
			return true
		}
	}
	return false
}

// metadataHosts are names that reach a metadata service from inside a
// cloud instance.
var metadataHosts = []string{
	"metadata.google.internal",
	"metadata.goog",
	"metadata",
	"instance-data",
	"instance-data.ec2.internal",
	"metadata.azure.com",
	"metadata.azure.internal",
	"metadata.tencentyun.com",
}

// isMetadataHost reports whether host (lower case, without a trailing
// dot) names a metadata service.
func isMetadataHost(host string) bool {
	for _, m := range metadataHosts {
		if host == m {
			return true
		}
	}
	return false
}

// numericHost reports whether host looks like one of the legacy IPv4
// spellings some resolvers accept (2130706433, 0x7f.1, 0177.0.0.1,
// 127.1): a name whose last label is a number cannot be a real domain, and
// such a spelling hides the address from a reader.
func numericHost(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if rest, ok := strings.CutPrefix(last, "0x"); ok {
		last = rest
		for _, c := range last {
			if !strings.ContainsRune("0123456789abcdef", c) {
				return false
			}
		}
		return true
	}
	for _, c := range last {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Loopback reports whether a listen address (host:port) is reachable only
// from this machine: localhost or a loopback IP. A server that listens
// beyond it must ask for a token.
func Loopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// localKind returns why a is refused when it is one of the machine's own
// interface addresses, or "". An address of this machine reaches the
// services that listen on all interfaces (0.0.0.0) just as loopback does,
// and the ranges AddrKind knows cannot tell: a host's public or
// documentation-range address is its own too. When the addresses cannot
// be listed, every address is refused, since any may be the machine's.
func (g *Guard) localKind(a netip.Addr) string {
	addrs, err := g.localAddrs()
	if err != nil {
		return "possibly an address of this machine (its interface addresses cannot be listed: " + err.Error() + ")"
	}
	a = a.WithZone("").Unmap()
	for _, l := range addrs {
		if l.WithZone("").Unmap() == a {
			return "an address of this machine's own network interfaces"
		}
	}
	return ""
}

// localAddrs lists the machine's interface addresses, through LocalAddrs
// when set.
func (g *Guard) localAddrs() ([]netip.Addr, error) {
	if g.LocalAddrs != nil {
		return g.LocalAddrs()
	}
	return interfaceAddrs()
}

// interfaceAddrs lists the addresses of every network interface of the
// machine, up or not, as net.InterfaceAddrs reports them.
func interfaceAddrs() ([]netip.Addr, error) {
	nets, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, 0, len(nets))
	for _, n := range nets {
		var ip net.IP
		switch v := n.(type) {
		case *net.IPNet:
			ip = v.IP
		case *net.IPAddr:
			ip = v.IP
		}
		if a, ok := netip.AddrFromSlice(ip); ok {
			out = append(out, a.Unmap())
		}
	}
	return out, nil
}
