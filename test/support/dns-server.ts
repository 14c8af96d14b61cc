import dns2 from 'dns2';

const { Packet } = dns2;

export type RecordType = 'TXT' | 'MX' | 'A' | 'AAAA' | 'NS' | 'PTR';
export interface MxValue {
  exchange: string;
  priority: number;
}
type Zone = Map<string, Partial<Record<RecordType, unknown[]>>>;

export interface DnsServer {
  /** `127.0.0.1:port`, the form `DNS_SERVERS` takes. */
  address: string;
  /** Replaces the records of one name and type; an empty list removes them. */
  set(name: string, type: 'TXT', values: string[]): void;
  set(name: string, type: 'MX', values: MxValue[]): void;
  /** PTR: `name` is the reverse name, such as `5.113.0.203.in-addr.arpa`. */
  set(name: string, type: 'A' | 'AAAA' | 'NS' | 'PTR', values: string[]): void;
  /** Removes every record of a name. */
  remove(name: string): void;
  stop(): Promise<void>;
}

// A DNS character-string holds at most 255 bytes; a DKIM key is longer and is split, as zone files do.
const chunks = (s: string) => s.match(/[\s\S]{1,255}/g) ?? [''];

function answer(type: RecordType, name: string, value: unknown) {
  const base = { name, class: Packet.CLASS.IN, ttl: 60 };
  switch (type) {
    case 'TXT':
      return { ...base, type: Packet.TYPE.TXT, data: chunks(value as string) };
    case 'MX':
      return { ...base, type: Packet.TYPE.MX, ...(value as MxValue) };
    case 'NS':
      return { ...base, type: Packet.TYPE.NS, ns: value };
    case 'A':
      return { ...base, type: Packet.TYPE.A, address: value };
    case 'AAAA':
      return { ...base, type: Packet.TYPE.AAAA, address: value };
    case 'PTR':
      return { ...base, type: Packet.TYPE.PTR, domain: value };
  }
}

const TYPE_NAMES = new Map<number, RecordType>(
  (['TXT', 'MX', 'A', 'AAAA', 'NS', 'PTR'] as const).map((t) => [Packet.TYPE[t] as number, t]),
);

/** A real DNS server on a loopback UDP port, answering from an in-memory zone the test controls. */
export async function startDnsServer(): Promise<DnsServer> {
  const zone: Zone = new Map();
  const server = dns2.createUDPServer((request: any, send: any) => {
    const response = Packet.createResponseFromRequest(request);
    for (const q of request.questions) {
      const name = String(q.name).toLowerCase().replace(/\.$/, '');
      const records = zone.get(name);
      if (!records) {
        response.header.rcode = 3; // NXDOMAIN
        continue;
      }
      const type = TYPE_NAMES.get(q.type);
      for (const value of (type && records[type]) || []) response.answers.push(answer(type!, q.name, value) as any);
    }
    send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    set(name: string, type: RecordType, values: unknown[]) {
      const key = name.toLowerCase();
      const records = zone.get(key) ?? {};
      if (values.length) records[type] = values;
      else delete records[type];
      if (Object.keys(records).length) zone.set(key, records);
      else zone.delete(key);
    },
    remove(name) {
      zone.delete(name.toLowerCase());
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  } as DnsServer;
}
