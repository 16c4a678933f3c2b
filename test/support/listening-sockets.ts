/**
 * The TCP sockets processes listen on, from /proc alone (no `ss` or `netstat` on a bare machine):
 * each process's file descriptors name socket inodes, and /proc/net/tcp and tcp6 give each
 * listening socket's inode and local address.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { endianness } from 'node:os';
import ipaddr from 'ipaddr.js';

export interface ListeningSocket {
  pid: number;
  address: string;
  port: number;
}

/** /proc/net/tcp's state code for LISTEN. */
const LISTEN = '0A';

/** Reads a /proc file of a process that may exit meanwhile; undefined once it has. */
async function readProc<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return undefined;
    throw error;
  }
}

/** `pid` and every process under it, children of children included. */
export async function processTree(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readProc(() => readFile(`/proc/${entry}/stat`, 'utf8'));
    // `pid (command) state ppid ...`: the command may hold spaces and parentheses, so after the last ')'.
    const ppid = stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    if (ppid !== undefined) parents.set(Number(entry), Number(ppid));
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  }
  return tree;
}

/**
 * An address as /proc/net/tcp{,6} prints it: 32-bit words in hex, each in the machine's byte
 * order (`0100007F` is 127.0.0.1 on a little-endian machine).
 */
function procAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = Buffer.from(words.map((word) => (endianness() === 'LE' ? word.match(/../g)!.reverse().join('') : word)).join(''), 'hex');
  return ipaddr.fromByteArray([...bytes]).toString();
}

/** The listening sockets of /proc/net/tcp and tcp6, by inode. */
async function listeningByInode(): Promise<Map<string, { address: string; port: number }>> {
  const byInode = new Map<string, { address: string; port: number }>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readProc(() => readFile(table, 'utf8')))?.split('\n').slice(1) ?? [];
    for (const line of lines) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== LISTEN) continue;
      const [address, port] = fields[1]!.split(':');
      byInode.set(fields[9]!, { address: procAddress(address!), port: Number.parseInt(port!, 16) });
    }
  }
  return byInode;
}

/** Every TCP socket the processes `pids` listen on. */
export async function listeningSockets(pids: readonly number[]): Promise<ListeningSocket[]> {
  const listening = await listeningByInode();
  const sockets: ListeningSocket[] = [];
  for (const pid of pids) {
    const descriptors = (await readProc(() => readdir(`/proc/${pid}/fd`))) ?? [];
    for (const fd of descriptors) {
      const inode = /^socket:\[(\d+)\]$/.exec((await readProc(() => readlink(`/proc/${pid}/fd/${fd}`))) ?? '')?.[1];
      const socket = inode === undefined ? undefined : listening.get(inode);
      if (socket) sockets.push({ pid, ...socket });
    }
  }
  return sockets;
}

/** Whether `address` is a loopback address (127.0.0.0/8, ::1, or 127.x mapped into IPv6). */
export const isLoopback = (address: string): boolean => ipaddr.process(address).range() === 'loopback';
