import { openDatabase } from '../../src/service/store/database';

/**
 * Fault injection at the engine: a trigger that makes SQLite itself abort a write, so a commit fails
 * the way a power cut or a full disk would make it fail, inside the real store. The one place tests
 * write SQL (everything else goes through the store's interfaces).
 */
export function installFault(dataDir: string, name: string, trigger: string): void {
  const db = openDatabase({ dataDir });
  try {
    db.exec(`CREATE TRIGGER ${name} ${trigger}`);
  } finally {
    db.close();
  }
}

/** Removes a fault installed by `installFault`. */
export function removeFault(dataDir: string, name: string): void {
  const db = openDatabase({ dataDir });
  try {
    db.exec(`DROP TRIGGER IF EXISTS ${name}`);
  } finally {
    db.close();
  }
}
