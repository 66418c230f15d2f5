import { open, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AppError } from '../errors.ts';
import { StartupError } from '../startup.ts';
import { changed, newEndpoint, newSource, storedEndpoint } from './records.ts';
import type { AccessToken, Catalog, Endpoint, EndpointInput, Source, SourceInput } from './types.ts';

interface CatalogFile {
  version: 1;
  next_id: number;
  sources: Source[];
  endpoints: Endpoint[];
  access_tokens: AccessToken[];
}

const EMPTY: CatalogFile = { version: 1, next_id: 1, sources: [], endpoints: [], access_tokens: [] };

function assertNameFree(records: Array<{ id: number; owner_id: number; name: string }>, ownerId: number, name: string, kind: string, self?: number) {
  if (records.some((record) => record.owner_id === ownerId && record.name === name && record.id !== self)) {
    throw new AppError(422, 'unprocessable', `${kind} name "${name}" is already taken`, { errors: { name: ['has already been taken'] } });
  }
}

const matches = (record: { id: number; token: string }, tokenOrId: string) =>
  record.token === tokenOrId || String(record.id) === tokenOrId;

/**
 * The embedded catalog: one JSON file in the data dir, held in memory and rewritten atomically
 * (write, fsync, rename) on every change, so a crash leaves the old or the new catalog, never half.
 */
export class FileCatalog implements Catalog {
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private data: CatalogFile,
  ) {}

  static async open(dataDir: string): Promise<FileCatalog> {
    const path = join(dataDir, 'catalog.json');
    let data = structuredClone(EMPTY);
    try {
      data = JSON.parse(await readFile(path, 'utf8')) as CatalogFile;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (data.version !== EMPTY.version) {
      throw new StartupError(`${path} has version ${String(data.version)}; this Sawmill reads version ${EMPTY.version}: run the Sawmill that wrote it, or restore a backup`);
    }
    return new FileCatalog(path, { ...data, endpoints: data.endpoints.map(storedEndpoint) });
  }

  listSources(ownerId?: number): Source[] {
    return this.data.sources.filter((source) => ownerId === undefined || source.owner_id === ownerId);
  }

  getSource(ownerId: number, tokenOrId: string): Source | undefined {
    return this.data.sources.find((source) => source.owner_id === ownerId && matches(source, tokenOrId));
  }

  sourceByToken(token: string): Source | undefined {
    return this.data.sources.find((source) => source.token === token);
  }

  sourceByName(ownerId: number, name: string): Source | undefined {
    return this.data.sources.find((source) => source.owner_id === ownerId && source.name === name);
  }

  async createSource(ownerId: number, input: SourceInput): Promise<Source> {
    const source = newSource(0, ownerId, input);
    await this.commit((data) => {
      assertNameFree(data.sources, ownerId, input.name, 'source');
      source.id = data.next_id++;
      data.sources.push(source);
    });
    return source;
  }

  async updateSource(source: Source, changes: Partial<SourceInput>): Promise<Source> {
    const updated = changed(source, changes);
    await this.commit((data) => {
      assertNameFree(data.sources, source.owner_id, updated.name, 'source', source.id);
      data.sources = data.sources.map((item) => (item.id === source.id ? updated : item));
    });
    return updated;
  }

  async deleteSource(source: Source): Promise<void> {
    await this.commit((data) => {
      data.sources = data.sources.filter((item) => item.id !== source.id);
    });
  }

  listEndpoints(ownerId: number): Endpoint[] {
    return this.data.endpoints.filter((endpoint) => endpoint.owner_id === ownerId);
  }

  getEndpoint(ownerId: number, tokenOrId: string): Endpoint | undefined {
    return this.data.endpoints.find((endpoint) => endpoint.owner_id === ownerId && matches(endpoint, tokenOrId));
  }

  endpointByName(ownerId: number, name: string): Endpoint | undefined {
    return this.data.endpoints.find((endpoint) => endpoint.owner_id === ownerId && endpoint.name === name);
  }

  endpointByToken(token: string): Endpoint | undefined {
    return this.data.endpoints.find((endpoint) => endpoint.token === token);
  }

  async createEndpoint(ownerId: number, input: EndpointInput): Promise<Endpoint> {
    const endpoint = newEndpoint(0, ownerId, input);
    await this.commit((data) => {
      assertNameFree(data.endpoints, ownerId, input.name, 'endpoint');
      endpoint.id = data.next_id++;
      data.endpoints.push(endpoint);
    });
    return endpoint;
  }

  async updateEndpoint(endpoint: Endpoint, changes: Partial<EndpointInput>): Promise<Endpoint> {
    const updated = changed(endpoint, changes);
    await this.commit((data) => {
      assertNameFree(data.endpoints, endpoint.owner_id, updated.name, 'endpoint', endpoint.id);
      data.endpoints = data.endpoints.map((item) => (item.id === endpoint.id ? updated : item));
    });
    return updated;
  }

  async deleteEndpoint(endpoint: Endpoint): Promise<void> {
    await this.commit((data) => {
      data.endpoints = data.endpoints.filter((item) => item.id !== endpoint.id);
    });
  }

  listAccessTokens(ownerId: number): AccessToken[] {
    return this.data.access_tokens.filter((token) => token.owner_id === ownerId);
  }

  accessTokenByHash(keyHash: string): AccessToken | undefined {
    return this.data.access_tokens.find((token) => token.key_hash === keyHash);
  }

  async createAccessToken(ownerId: number, keyHash: string, scopes: string[], description: string | null): Promise<AccessToken> {
    const token: AccessToken = {
      id: 0,
      owner_id: ownerId,
      key_hash: keyHash,
      scopes,
      description,
      inserted_at: new Date().toISOString(),
    };
    await this.commit((data) => {
      token.id = data.next_id++;
      data.access_tokens.push(token);
    });
    return token;
  }

  async deleteAccessToken(token: AccessToken): Promise<void> {
    await this.commit((data) => {
      data.access_tokens = data.access_tokens.filter((item) => item.id !== token.id);
    });
  }

  /** Apply a change to a copy, persist it, then make it visible: memory never runs ahead of disk. */
  private commit(change: (data: CatalogFile) => void): Promise<void> {
    const run = this.saving.then(async () => {
      const next = structuredClone(this.data);
      change(next);
      await writeAtomically(this.path, JSON.stringify(next, null, 2));
      this.data = next;
    });
    this.saving = run.catch(() => undefined);
    return run;
  }
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const file = await open(temporary, 'w', 0o600);
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
  const directory = await open(dirname(path), 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}
