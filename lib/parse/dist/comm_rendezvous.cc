// c10d TCPStore and torch.distributed.elastic rendezvous set-up failures
// (kRendezvousError). The forms, by torch era (socket.cpp warnings are
// "[W socket.cpp:601] [c10d] ..." or glog "[W1002 ... socket.cpp:697]"):
//   client connect: "The client socket has failed to connect to
//     [node-0]:29500 (errno: 111 - Connection refused)." (also "... to any
//     network address of (node-0, 29500)."), "connect() to [node-0]:29500
//     failed: Connection refused", the old TCPStore "RuntimeError:
//     Connection refused";
//   client timeout: "The client socket has timed out after 1800s while
//     trying to connect to (10.0.0.1, 29500)." (DistNetworkError);
//   server: "The server socket has failed to listen on any local network
//     address. The server socket has failed to bind to [::]:29500 (errno:
//     98 - Address already in use). ...", each "failed to bind" warning, the
//     old "RuntimeError: Address already in use";
//   elastic: RendezvousTimeoutError, RendezvousClosedError,
//     RendezvousConnectionError ("The connection to the C10d store has
//     failed");
//   a master name that does not resolve: "The client socket has failed to
//     connect to any network address of (master, 29500). The IPv4 network
//     addresses of (master, 29500) cannot be retrieved (gai error: -2 - Name
//     or service not known)", a resolver error in another c10d or rendezvous
//     message (not the IPv6 clause alone: c10d tries IPv6 too, and warns on
//     healthy hosts);
//   a store connection that broke: "Connection reset by peer" in a c10d /
//     TCPStore / SocketImpl message, gloo's "Connection closed by peer
//     [10.0.0.2]:12345", TCPStore's "Failed to recv, got 0 bytes.
//     Connection was likely closed.".
// Not here: the store timeouts ("Timed out ... waiting for clients", "wait
// timeout after") are torch_watchdog_store.cc's store_timeout rows; the
// IPv6 fall-back warnings ("cannot be initialized ... (errno: 97 - Address
// family not supported by protocol)") are no failure.
#include <string>

#include "parse/dist/comm_forms.h"
#include "parse/dist/comm_text.h"
#include "parse/dist/dist_kinds.h"
#include "parse/line/byte_search.h"
#include "parse/line/scan.h"

namespace casefile::dist {
namespace {

using scan::AnyOfFourBytes;
using scan::HasAt;
using scan::HasBefore;

constexpr size_t npos = std::string_view::npos;

bool Has(std::string_view s, std::string_view part) { return s.find(part) != npos; }

// A Python exception class named as the subject of `msg` (the exception
// line "pkg.RendezvousTimeoutError: ..." or the bare name at its end), not
// a traceback's source echo ("raise RendezvousTimeoutError(...)").
bool NamesException(std::string_view msg, std::string_view name) {
  const size_t at = msg.find(name);
  if (at == npos) return false;
  std::string_view before = msg.substr(0, at);
  while (!before.empty() && before.front() == ' ') before.remove_prefix(1);
  if (before.starts_with("raise ") || before.starts_with("except ") ||
      before.starts_with("from ") || before.starts_with("import ")) {
    return false;
  }
  const size_t end = at + name.size();
  return end == msg.size() || msg[end] == ':' || msg[end] == ' ' || msg[end] == '.';
}

// The torch distributed context a bare socket error needs to be a store's.
bool C10dContext(std::string_view msg) {
  for (std::string_view w : {"c10d", "TCPStore", "DistNetworkError", "DistStoreError", "SocketImpl",
                             "socket.cpp", "rendezvous", "Rendezvous", "torch.distributed"}) {
    if (Has(msg, w)) return true;
  }
  return false;
}

// "after 1800s", "after 900000ms", "after 60 seconds" at s[i] -> ms.
std::optional<int64_t> DurationMs(std::string_view s, size_t i) {
  uint64_t v = 0;
  const size_t n = scan::ReadUint(s, i, 12, &v);
  if (n == 0) return std::nullopt;
  size_t j = i + n;
  while (j < s.size() && s[j] == ' ') ++j;
  if (s.substr(j, 2) == "ms") return static_cast<int64_t>(v);
  if (s.substr(j, 1) == "s") return static_cast<int64_t>(v) * 1000;
  return std::nullopt;
}

// op, and the endpoint and errno that `scope` (the message from the phrase
// that matched) names.
void Fill(DistEventRow& row, const char* op, std::string_view scope) {
  row.op = op;
  std::string endpoint = Endpoint(scope);
  if (!endpoint.empty()) row.detail = std::move(endpoint);
  if (auto e = ErrnoOf(scope)) row.value = static_cast<double>(*e);
}

// A master name that did not resolve. c10d tries IPv6 as well and warns
// "The IPv6 network addresses of (localhost, 51595) cannot be retrieved (gai
// error: -2 ...)" on healthy hosts without IPv6 names: a resolver error that
// only the IPv6 clause names is no failure.
bool NameNotResolved(std::string_view msg) {
  const bool resolver = Has(msg, "gai error") || Has(msg, "Name or service not known") ||
                        Has(msg, "Temporary failure in name resolution") ||
                        Has(msg, "nodename nor servname");
  if (!resolver) return false;
  if (Has(msg, "IPv6 network addresses") && !Has(msg, "IPv4 network addresses")) return false;
  return Has(msg, "gai error") || C10dContext(msg);
}

}  // namespace

bool MayBeRendezvous(std::string_view msg) {
  return AnyOfFourBytes(msg, 'k', 'z', 'f', 'y', [msg](size_t i) {
    switch (msg[i]) {
      case 'k':  // socket, Socket, SocketImpl, DistNetworkError
        return (i >= 3 && HasAt(msg, i - 3, "ocket")) || (i >= 4 && HasAt(msg, i - 4, "twork"));
      case 'z':  // Rendezvous*
        return i >= 1 && HasAt(msg, i - 1, "ezvous");
      case 'f':
        return HasAt(msg, i, "failed") || (i >= 2 && HasAt(msg, i - 2, "refused"));
      default:  // "reset by peer", "closed by peer", "Address already in use"
        return HasAt(msg, i, "y peer") || HasBefore(msg, i + 1, "already");
    }
  });
}

bool ReadRendezvous(std::string_view msg, DistEventRow& row) {
  if (NamesException(msg, "RendezvousTimeoutError")) {
    Fill(row, kRdzvTimeout, msg);
    return true;
  }
  if (NamesException(msg, "RendezvousClosedError")) {
    Fill(row, kRdzvClosed, msg);
    return true;
  }
  if (NamesException(msg, "RendezvousConnectionError") ||
      Has(msg, "connection to the C10d store has failed")) {
    Fill(row, kRdzvStoreFailed, msg);
    return true;
  }
  if (const size_t at = msg.find("client socket has timed out after "); at != npos) {
    Fill(row, kRdzvSocketTimeout, msg.substr(at));
    if (auto ms = DurationMs(msg, at + 34)) row.timeout_ms = *ms;
    return true;
  }
  // The server side: "failed to bind" names the endpoint and errno, "failed
  // to listen" sums them up (and holds the bind failures in the exception).
  if (const size_t bind = msg.find("failed to bind to "); bind != npos) {
    const std::string_view scope = msg.substr(bind);
    const bool in_use = Has(scope, "Address already in use") || ErrnoOf(scope) == 98;
    Fill(row, in_use ? kRdzvAddressInUse : kRdzvListenFailed, scope);
    return true;
  }
  if (Has(msg, "server socket has failed to listen")) {
    // torch >= 2.2 sums the bind failures up as "... port: 29500, useIpv6:
    // 0, code: -98, name: EADDRINUSE, message: address already in use".
    const bool in_use = Has(msg, "EADDRINUSE") || Has(msg, "code: -98") ||
                        Has(msg, "address already in use") || Has(msg, "Address already in use");
    Fill(row, in_use ? kRdzvAddressInUse : kRdzvListenFailed, msg);
    if (!row.detail) {
      if (const size_t port = msg.find("port: "); port != npos) {
        size_t end = port + 6;
        while (end < msg.size() && scan::IsDigit(msg[end])) ++end;
        if (end > port + 6 && end - port - 6 <= 5) {
          row.detail = "*:" + std::string(msg.substr(port + 6, end - port - 6));
        }
      }
    }
    if (!row.value && Has(msg, "code: -98")) row.value = 98;
    return true;
  }
  if (Has(msg, "Address already in use") && C10dContext(msg)) {
    Fill(row, kRdzvAddressInUse, msg);
    return true;
  }
  if (msg.ends_with("RuntimeError: Address already in use")) {
    Fill(row, kRdzvAddressInUse, msg);
    return true;
  }
  // A master name that does not resolve: the clients' connect failures
  // that follow are its consequence.
  if (NameNotResolved(msg)) {
    Fill(row, kRdzvNameResolution, msg);
    row.value.reset();  // a resolver code (-2, -3), not an errno
    return true;
  }
  // The client side.
  size_t connect = msg.find("client socket has failed to connect");
  if (connect == npos) connect = msg.find("connect() to ");
  if (connect != npos && (Has(msg, "failed") || Has(msg, "refused"))) {
    const std::string_view scope = msg.substr(connect);
    const bool refused = Has(scope, "Connection refused") || ErrnoOf(scope) == 111;
    Fill(row, refused ? kRdzvRefused : kRdzvConnectFailed, scope);
    return true;
  }
  // A store connection that broke.
  if (const size_t at = msg.find("Connection closed by peer"); at != npos) {
    Fill(row, kRdzvReset, msg.substr(at));
    return true;
  }
  if (Has(msg, "Connection reset by peer") && C10dContext(msg)) {
    Fill(row, kRdzvReset, msg);
    return true;
  }
  if (Has(msg, "Failed to recv, got 0 bytes")) {
    Fill(row, kRdzvReset, msg);
    return true;
  }
  // The old TCPStore: a bare "Connection refused" raised by torch.
  if (Has(msg, "Connection refused") &&
      (C10dContext(msg) || msg.ends_with("RuntimeError: Connection refused"))) {
    Fill(row, kRdzvRefused, msg);
    return true;
  }
  return false;
}

}  // namespace casefile::dist
