"""IP network functions: ``cidrhost``, ``cidrnetmask``, ``cidrsubnet``, ``cidrsubnets``, with the
arithmetic of terraform's go-cidr (a negative host number counts back from the end of the range;
``cidrsubnets`` allocates each subnet right after the previous one, aligned to its own size)."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import ArgumentError, _known, _string_arg
from engine.lang.number import whole_number
from engine.values import UNKNOWN, ListVal

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _network(prefix: Any) -> _Network:
    text = _string_arg(prefix)
    try:
        if "/" not in text:
            raise ValueError
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise FunctionError(f"invalid CIDR expression: invalid CIDR address: {text}.") from None


def _whole(v: Any, index: int) -> int:
    return whole_number(v, "value")


def _cidr(net: _Network, ip: int, plen: int) -> str:
    addr = ipaddress.IPv4Address(ip) if net.version == 4 else ipaddress.IPv6Address(ip)
    return f"{addr}/{plen}"


def cidrhost(prefix: Any, hostnum: Any) -> Any:
    if not _known(prefix, hostnum):
        return UNKNOWN
    net = _network(prefix)
    num = _whole(hostnum, 1)
    host_bits = net.max_prefixlen - net.prefixlen
    top = (1 << host_bits) - 1
    if num > top or -num > top + 1:
        raise FunctionError(f"prefix of {net.prefixlen} does not accommodate a host numbered {num}.")
    if num < 0:
        num += top + 1
    return str(net.network_address + num)


def cidrnetmask(prefix: Any) -> Any:
    if not _known(prefix):
        return UNKNOWN
    net = _network(prefix)
    if net.version == 6:
        raise FunctionError(f"IPv6 addresses cannot have a netmask: {_string_arg(prefix)}.")
    return str(net.netmask)


def cidrsubnet(prefix: Any, newbits: Any, netnum: Any) -> Any:
    if not _known(prefix, newbits, netnum):
        return UNKNOWN
    net = _network(prefix)
    bits, num = _whole(newbits, 1), _whole(netnum, 2)
    new_len = net.prefixlen + bits
    if bits < 0 or new_len > net.max_prefixlen:
        raise FunctionError(f"insufficient address space to extend prefix of {net.prefixlen} by {bits}.")
    if num < 0 or num >= 1 << bits:
        raise FunctionError(f"prefix extension of {bits} does not accommodate a subnet numbered {num}.")
    base = int(net.network_address) | (num << (net.max_prefixlen - new_len))
    return _cidr(net, base, new_len)


def cidrsubnets(prefix: Any, *newbits: Any) -> Any:
    if not _known(prefix, *newbits):
        return UNKNOWN
    net = _network(prefix)
    if not newbits:
        return ListVal([])
    width = net.max_prefixlen
    size = 1 << width
    start = net.prefixlen

    def hostmask(plen: int) -> int:
        return (1 << (width - plen)) - 1

    lengths = [_whole(b, i + 1) for i, b in enumerate(newbits)]
    first = lengths[0] + start
    cur_len = min(max(first, 0), width)
    cur = ((int(net.network_address) - 1) % size) & ~hostmask(cur_len) & (size - 1)
    out = []
    for i, length in enumerate(lengths):
        if length < 1:
            raise ArgumentError(i + 1, "must extend prefix by at least one bit")
        if length > width - start:
            raise ArgumentError(i + 1, f"would extend prefix to {length + start} bits, which is too long for an "
                                       f"IPv{net.version} address")
        plen = length + start
        last = (cur | hostmask(cur_len)) & ~hostmask(plen)
        after = (last | hostmask(plen)) + 1
        nxt = after & ~hostmask(plen) & (size - 1)
        if after >= size or not (int(net.network_address) <= nxt <= int(net.broadcast_address)):
            raise ArgumentError(i + 1, f"not enough remaining address space for a subnet with a prefix of "
                                       f"{plen} bits after {_cidr(net, cur, cur_len)}")
        cur, cur_len = nxt, plen
        out.append(_cidr(net, cur, cur_len))
    return ListVal(out)


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "cidrhost(prefix, hostnum)": cidrhost,
    "cidrnetmask(prefix)": cidrnetmask,
    "cidrsubnet(prefix, newbits, netnum)": cidrsubnet,
    "cidrsubnets(prefix, newbits...)": cidrsubnets,
}
