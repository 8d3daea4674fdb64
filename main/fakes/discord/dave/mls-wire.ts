// The MLS bytes a DAVE voice gateway writes and reads (RFC 9420 TLS presentation language, as used by
// the DAVE protocol): the op 25 external sender package, signed external Add/Remove proposals for op 27,
// and the split of an op 28 commit‖welcome. The gateway is an MLS *external sender*: it signs proposals
// with its own P-256 key (node:crypto) and never holds group secrets. Byte layout verified against the
// real @discordjs/voice 0.19.2 + @snazzah/davey 0.1.12 (shared/research/dave-recipe.md §2-3).
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

const MLS_VERSION_10 = 1;
const WIRE_FORMAT_PUBLIC_MESSAGE = 1;
const SENDER_MEMBER = 1;
const SENDER_EXTERNAL = 2;
const CONTENT_PROPOSAL = 2;
const CONTENT_COMMIT = 3;
const PROPOSAL_ADD = 1;
const PROPOSAL_REMOVE = 3;
const CREDENTIAL_BASIC = 1;
const LEAF_SOURCE_KEY_PACKAGE = 1;
const LEAF_SOURCE_COMMIT = 3;

/** op 27 operation types. */
export const PROPOSALS_APPEND = 0;
export const PROPOSALS_REVOKE = 1;

/** MLS variable-length vector length prefix (QUIC-style varint, RFC 9420 §2.1.2). */
function varint(n: number): Buffer {
  if (n < 0x40) return Buffer.from([n]);
  if (n < 0x4000) return Buffer.from([0x40 | (n >> 8), n & 0xff]);
  const b = Buffer.alloc(4);
  b.writeUInt32BE((0x80000000 | n) >>> 0);
  return b;
}
const vec = (b: Buffer): Buffer => Buffer.concat([varint(b.length), b]);
const u16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const u64 = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
};

export interface ExternalSender {
  privateKey: KeyObject;
  /** The op 25 payload: signature_key<V> ‖ u16 credential_type ‖ identity<V>. */
  packageBytes: Buffer;
}

export function createExternalSender(): ExternalSender {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x ?? '', 'base64url'),
    Buffer.from(jwk.y ?? '', 'base64url'),
  ]);
  // The real gateway's identity is one zero byte.
  return { privateKey, packageBytes: Buffer.concat([vec(point), u16(CREDENTIAL_BASIC), vec(Buffer.from([0]))]) };
}

/** The group id of a voice channel: its snowflake as 8 big-endian bytes. */
export function groupIdOf(channelId: string): Buffer {
  return u64(BigInt(channelId));
}

/** A PublicMessage carrying one proposal from external sender 0, signed over FramedContentTBS (no GroupContext for external senders). */
export function externalProposal(sender: ExternalSender, channelId: string, epoch: bigint, proposal: Buffer): Buffer {
  const head = Buffer.concat([u16(MLS_VERSION_10), u16(WIRE_FORMAT_PUBLIC_MESSAGE)]);
  const content = Buffer.concat([
    vec(groupIdOf(channelId)),
    u64(epoch),
    Buffer.from([SENDER_EXTERNAL]),
    u32(0),
    vec(Buffer.alloc(0)),
    Buffer.from([CONTENT_PROPOSAL]),
    proposal,
  ]);
  const tbs = Buffer.concat([vec(Buffer.from('MLS 1.0 FramedContentTBS')), vec(Buffer.concat([head, content]))]);
  return Buffer.concat([head, content, vec(sign('sha256', tbs, sender.privateKey))]);
}

export const addProposal = (keyPackage: Buffer): Buffer => Buffer.concat([u16(PROPOSAL_ADD), keyPackage]);
export const removeProposal = (leafIndex: number): Buffer => Buffer.concat([u16(PROPOSAL_REMOVE), u32(leafIndex)]);

/** op 27 body: operation type ‖ <V> of concatenated MLSMessages. */
export function proposalsPayload(messages: Buffer[], operation = PROPOSALS_APPEND): Buffer {
  return Buffer.concat([Buffer.from([operation]), vec(Buffer.concat(messages))]);
}

/** Reads MLS structures; throws RangeError on truncated input. */
class Reader {
  offset = 0;
  readonly bytes: Buffer;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
  #need(n: number): void {
    if (this.offset + n > this.bytes.length) throw new RangeError('truncated MLS message');
  }
  u8(): number {
    this.#need(1);
    return this.bytes[this.offset++];
  }
  u16(): number {
    this.#need(2);
    const v = this.bytes.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  u32(): number {
    this.#need(4);
    const v = this.bytes.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  u64(): bigint {
    this.#need(8);
    const v = this.bytes.readBigUInt64BE(this.offset);
    this.offset += 8;
    return v;
  }
  vec(): Buffer {
    const first = this.u8();
    const prefix = first >> 6;
    let length = first & 0x3f;
    if (prefix === 1) length = (length << 8) | this.u8();
    else if (prefix === 2) {
      length = (length << 24) | (this.u8() << 16) | (this.u8() << 8) | this.u8();
    } else if (prefix === 3) throw new RangeError('invalid MLS varint');
    this.#need(length);
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
}

export interface SplitCommitWelcome {
  commit: Buffer;
  /** The Welcome that follows the commit without any length prefix; null when nobody was added. */
  welcome: Buffer | null;
  groupId: Buffer;
  /** The epoch the commit was built on (the group moves to epoch + 1). */
  epoch: bigint;
  senderType: number;
  senderLeaf: number | null;
}

function skipLeafNode(r: Reader): void {
  r.vec(); // encryption_key
  r.vec(); // signature_key
  const credentialType = r.u16();
  if (credentialType !== CREDENTIAL_BASIC) throw new RangeError(`unsupported credential type ${credentialType}`);
  r.vec(); // identity
  for (let i = 0; i < 5; i++) r.vec(); // capabilities: versions, cipher_suites, extensions, proposals, credentials
  const source = r.u8();
  if (source === LEAF_SOURCE_KEY_PACKAGE) {
    r.u64();
    r.u64();
  } else if (source === LEAF_SOURCE_COMMIT) r.vec();
  r.vec(); // extensions
  r.vec(); // signature
}

/** Split an op 28 payload (MLSMessage(commit) ‖ optional Welcome) by parsing the commit. */
export function splitCommitWelcome(payload: Buffer): SplitCommitWelcome {
  const r = new Reader(payload);
  if (r.u16() !== MLS_VERSION_10) throw new RangeError('not an MLS 1.0 message');
  if (r.u16() !== WIRE_FORMAT_PUBLIC_MESSAGE) throw new RangeError('commit is not a PublicMessage');
  const groupId = r.vec();
  const epoch = r.u64();
  const senderType = r.u8();
  const senderLeaf = senderType === SENDER_MEMBER || senderType === SENDER_EXTERNAL ? r.u32() : null;
  r.vec(); // authenticated_data
  if (r.u8() !== CONTENT_COMMIT) throw new RangeError('op 28 does not start with a commit');
  r.vec(); // proposals (ProposalOrRef vector)
  if (r.u8() === 1) {
    skipLeafNode(r);
    r.vec(); // UpdatePath nodes
  }
  r.vec(); // signature
  r.vec(); // confirmation_tag
  if (senderType === SENDER_MEMBER) r.vec(); // membership_tag
  const commit = payload.subarray(0, r.offset);
  const rest = payload.subarray(r.offset);
  return { commit, welcome: rest.length > 0 ? rest : null, groupId, epoch, senderType, senderLeaf };
}

/** Server → client binary frame: u16 seq ‖ u8 opcode ‖ payload. */
export function serverBinaryFrame(seq: number, opcode: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(3);
  head.writeUInt16BE(seq & 0xffff, 0);
  head[2] = opcode;
  return Buffer.concat([head, payload]);
}

/** op 29 / op 30 body: u16 transition id ‖ message. */
export function withTransitionId(transitionId: number, message: Buffer): Buffer {
  return Buffer.concat([u16(transitionId), message]);
}
