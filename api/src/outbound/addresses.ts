import { isIP } from "node:net";

/**
 * Whether an IP address is on the public internet. Refused: unspecified, loopback, private (RFC 1918, ULA),
 * carrier-grade NAT, link-local (169.254/16 includes cloud metadata), multicast, benchmarking, documentation,
 * reserved and broadcast ranges, for IPv4 and IPv6, and IPv4-mapped/-compatible/NAT64/6to4 forms of them.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isPublicV4(v4Bytes(address));
  if (family === 6) return isPublicV6(v6Words(address));
  return false;
}

function v4Bytes(address: string): number[] {
  return address.split(".").map(Number);
}

function isPublicV4([a, b, c]: number[]): boolean {
  if (a === undefined || b === undefined || c === undefined) return false;
  if (a === 0 || a === 10 || a === 127) return false; // this network, private, loopback
  if (a === 100 && b >= 64 && b <= 127) return false; // carrier-grade NAT
  if (a === 169 && b === 254) return false; // link-local, cloud metadata
  if (a === 172 && b >= 16 && b <= 31) return false; // private
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return false; // IETF protocol assignments, TEST-NET-1
  if (a === 192 && b === 88 && c === 99) return false; // 6to4 relay anycast
  if (a === 192 && b === 168) return false; // private
  if (a === 198 && (b === 18 || b === 19)) return false; // benchmarking
  if (a === 198 && b === 51 && c === 100) return false; // TEST-NET-2
  if (a === 203 && b === 0 && c === 113) return false; // TEST-NET-3
  if (a >= 224) return false; // multicast, reserved, broadcast
  return true;
}

/** The eight 16-bit words of an IPv6 address (with :: expanded and a trailing dotted IPv4 part converted). */
function v6Words(address: string): number[] {
  let text = address.toLowerCase().split("%")[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = v4Bytes(dotted[1]!);
    text = text.slice(0, -dotted[1]!.length) + `${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const headWords = head ? head.split(":").filter(Boolean) : [];
  const tailWords = tail ? tail.split(":").filter(Boolean) : [];
  const missing = 8 - headWords.length - tailWords.length;
  return [...headWords, ...Array(tail === undefined ? 0 : missing).fill("0"), ...tailWords].map((w) => parseInt(w, 16));
}

function isPublicV6(w: number[]): boolean {
  if (w.length !== 8 || w.some((x) => Number.isNaN(x))) return false;
  const [w0, w1, w2, w3, w4, w5, w6, w7] = w as [number, number, number, number, number, number, number, number];
  const embeddedV4 = [w6 >> 8, w6 & 0xff, w7 >> 8, w7 & 0xff];
  if (w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0 && w4 === 0) {
    if (w5 === 0xffff || w5 === 0) {
      // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), :: and ::1
      if (w5 === 0 && w6 === 0 && (w7 === 0 || w7 === 1)) return false;
      return isPublicV4(embeddedV4);
    }
    return false;
  }
  if (w0 === 0x64 && w1 === 0xff9b) return isPublicV4(embeddedV4); // NAT64 well-known prefix
  if (w0 === 0x2002) return isPublicV4([w1 >> 8, w1 & 0xff, w2 >> 8, w2 & 0xff]); // 6to4
  if ((w0 & 0xfe00) === 0xfc00) return false; // unique local
  if ((w0 & 0xffc0) === 0xfe80 || (w0 & 0xffc0) === 0xfec0) return false; // link-local, site-local
  if ((w0 & 0xff00) === 0xff00) return false; // multicast
  if (w0 === 0x2001 && w1 === 0x0db8) return false; // documentation
  if (w0 === 0x2001 && w1 < 0x0200) return false; // IETF protocol assignments (Teredo, benchmarking, ORCHID)
  if (w0 === 0x0100 && w1 === 0 && w2 === 0 && w3 === 0) return false; // discard-only
  return (w0 & 0xe000) === 0x2000; // global unicast 2000::/3
}

export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return v4Bytes(address)[0] === 127;
  if (family === 6) {
    const w = v6Words(address);
    return w.slice(0, 7).every((x) => x === 0) && w[7] === 1;
  }
  return false;
}
