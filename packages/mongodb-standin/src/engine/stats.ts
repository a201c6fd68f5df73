/**
 * Sizes as dbStats, collStats/$collStats and listDatabases report them, measured on what the
 * stand-in holds: a collection's size is the sum of its documents' BSON sizes (what mongod's
 * `size`/`dataSize` mean); an index's size is the BSON size of the keys it holds, so the `_id`
 * index and unique indexes have one, and non-unique indexes, which the stand-in keeps only as
 * definitions, hold nothing and report 0. Storage is memory: storageSize equals the data size
 * and nothing is free or compressed. Computed on request (one pass over the documents).
 */
import { BSON } from 'bson';
import type { CollectionView } from './views';
import { Document } from './values';

export interface CollectionSizes {
  count: number;
  size: number;
  indexSizes: Record<string, number>;
  totalIndexSize: number;
}

export function collectionSizes(collection: CollectionView): CollectionSizes {
  let size = 0;
  let idKeys = 0;
  for (const doc of collection.all()) {
    size += BSON.calculateObjectSize(doc);
    idKeys += BSON.calculateObjectSize({ _id: doc._id });
  }
  const indexSizes: Record<string, number> = {};
  for (const index of collection.indexes) {
    if (index.name === '_id_') indexSizes[index.name] = idKeys;
    else {
      let keys = 0;
      for (const key of index.owners.keys()) keys += Buffer.byteLength(key);
      indexSizes[index.name] = keys;
    }
  }
  const totalIndexSize = Object.values(indexSizes).reduce((sum, bytes) => sum + bytes, 0);
  return { count: collection.size, size, indexSizes, totalIndexSize };
}

/** mongod's `scale`: sizes divided and rounded down. */
function scaled(bytes: number, scale: number): number {
  return Math.floor(bytes / scale);
}

/** The storageStats document of $collStats (and the body of collStats). */
export function storageStats(sizes: CollectionSizes, scale: number): Document {
  const indexSizes: Record<string, number> = {};
  for (const [name, bytes] of Object.entries(sizes.indexSizes))
    indexSizes[name] = scaled(bytes, scale);
  return {
    size: scaled(sizes.size, scale),
    count: sizes.count,
    avgObjSize: sizes.count === 0 ? 0 : Math.floor(sizes.size / sizes.count),
    numOrphanDocs: 0,
    storageSize: scaled(sizes.size, scale),
    freeStorageSize: 0,
    capped: false,
    nindexes: Object.keys(sizes.indexSizes).length,
    indexBuilds: [],
    totalIndexSize: scaled(sizes.totalIndexSize, scale),
    totalSize: scaled(sizes.size + sizes.totalIndexSize, scale),
    indexSizes,
    scaleFactor: scale,
  };
}

/** The sizes of a whole database (dbStats), from its collections. */
export function databaseStats(
  database: string,
  collections: CollectionView[],
  scale: number,
): Document {
  let objects = 0;
  let dataSize = 0;
  let indexes = 0;
  let indexSize = 0;
  for (const collection of collections) {
    const sizes = collectionSizes(collection);
    objects += sizes.count;
    dataSize += sizes.size;
    indexes += Object.keys(sizes.indexSizes).length;
    indexSize += sizes.totalIndexSize;
  }
  return {
    db: database,
    collections: collections.length,
    views: 0,
    objects,
    avgObjSize: objects === 0 ? 0 : dataSize / objects,
    dataSize: scaled(dataSize, scale),
    storageSize: scaled(dataSize, scale),
    indexes,
    indexSize: scaled(indexSize, scale),
    totalSize: scaled(dataSize + indexSize, scale),
    scaleFactor: scale,
  };
}
