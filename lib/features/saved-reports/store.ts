/** Saved reports (and dashboards): a name, the page, and its URL state; owned by the analyst who saved it. */
import type { Sql } from "@/lib/core/store/sql";
import type { SavedPage, SavedReport } from "./model";


interface Row {
  id: string;
  owner_id: string;
  owner_email: string;
  name: string;
  page: SavedPage;
  params: string;
  shared_with_team: boolean;
  created_at: Date;
  updated_at: Date;
}

const SELECT = `SELECT r.id, r.owner_id, u.email AS owner_email, r.name, r.page, r.params, r.shared_with_team, r.created_at, r.updated_at
  FROM saved_reports r JOIN users u ON u.id = r.owner_id`;

function toReport(r: Row): SavedReport {
  return {
    id: r.id,
    ownerId: r.owner_id,
    ownerEmail: r.owner_email,
    name: r.name,
    page: r.page,
    params: r.params,
    sharedWithTeam: r.shared_with_team,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID_RE.test(s);

export function savedReportsRepo(db: Sql) {
  return {
    async create(input: { ownerId: string; name: string; page: SavedPage; params: string; sharedWithTeam: boolean }): Promise<SavedReport> {
      const rows = await db.query<{ id: string }>(
        "INSERT INTO saved_reports (owner_id, name, page, params, shared_with_team) VALUES ($1, $2, $3, $4, $5) RETURNING id",
        [input.ownerId, input.name, input.page, input.params, input.sharedWithTeam],
      );
      return (await this.get(rows[0]!.id))!;
    },
    async get(id: string): Promise<SavedReport | null> {
      if (!isUuid(id)) return null;
      const rows = await db.query<Row>(`${SELECT} WHERE r.id = $1`, [id]);
      return rows[0] ? toReport(rows[0]) : null;
    },
    /** What a user may see: their own and the team's shared ones (admins: all). */
    async listVisible(user: { id: string; role: string }): Promise<SavedReport[]> {
      const rows =
        user.role === "admin"
          ? await db.query<Row>(`${SELECT} ORDER BY r.updated_at DESC`)
          : await db.query<Row>(`${SELECT} WHERE r.owner_id = $1 OR r.shared_with_team ORDER BY r.updated_at DESC`, [user.id]);
      return rows.map(toReport);
    },
    async update(id: string, patch: { name?: string; params?: string; page?: SavedPage; sharedWithTeam?: boolean }): Promise<SavedReport | null> {
      const current = await this.get(id);
      if (!current) return null;
      await db.query("UPDATE saved_reports SET name = $2, page = $3, params = $4, shared_with_team = $5, updated_at = now() WHERE id = $1", [
        id,
        patch.name ?? current.name,
        patch.page ?? current.page,
        patch.params ?? current.params,
        patch.sharedWithTeam ?? current.sharedWithTeam,
      ]);
      return this.get(id);
    },
    async remove(id: string): Promise<boolean> {
      if (!isUuid(id)) return false;
      const rows = await db.query("DELETE FROM saved_reports WHERE id = $1 RETURNING id", [id]);
      return rows.length > 0;
    },
  };
}
