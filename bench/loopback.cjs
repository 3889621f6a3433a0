// Preloaded into Node servers the benches start (NODE_OPTIONS=--require ...):
// a server that calls `listen(port)` without a host would bind every
// interface; this makes it bind 127.0.0.1 instead, so a bench never exposes
// the target beyond the machine. Explicit hosts and unix sockets are kept.
'use strict';
const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (args.length === 1 || typeof args[1] === 'function') {
      args.splice(1, 0, '127.0.0.1');
    }
  } else if (first && typeof first === 'object' && first.host === undefined && first.path === undefined) {
    args[0] = { ...first, host: '127.0.0.1' };
  }
  return listen.apply(this, args);
};
