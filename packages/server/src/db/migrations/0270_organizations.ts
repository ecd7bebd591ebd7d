import { type Kysely, sql } from 'kysely';

/**
 * Organizations (decisions §9 "Studios", docs/orgs.md): a studio's apps belong to an organization whose
 * members hold one of four roles (`owner`, `admin`, `developer`, `viewer`); invitations by e-mail (the
 * token's keyed HMAC only, 7 days, single use, revocable); and the organization's own audit log.
 *
 * Every account that owns an app gets its personal organization (id `org_u<user_uuid>`, the account its
 * `owner`), and every app — deleted ones too — is moved into its owner's personal organization
 * (`oauth_clients.org_id`). Client ids, secrets, grants and tokens are untouched. Set-based statements,
 * so the move is as quick on a large database; `org_id` stays nullable in the schema (SQLite cannot add
 * a NOT NULL column without a default), the service always sets it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('personal', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema
    .createTable('org_members')
    .addColumn('org_id', 'varchar(40)', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_uuid', 'bigint', (c) => c.notNull())
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('org_members_pk', ['org_id', 'user_uuid'])
    .execute();
  await db.schema.createIndex('org_members_user').on('org_members').column('user_uuid').execute();
  await db.schema
    .createTable('org_invitations')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('org_id', 'varchar(40)', (c) => c.notNull().references('organizations.id'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('email', 'varchar(320)', (c) => c.notNull())
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('invited_by', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint')
    .addColumn('accepted_by', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('org_invitations_org').on('org_invitations').column('org_id').execute();
  await db.schema
    .createTable('org_audit')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('org_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_user', 'varchar(32)')
    .addColumn('action', 'varchar(64)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(64)')
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('org_audit_org_at').on('org_audit').columns(['org_id', 'at', 'id']).execute();

  await db.schema.alterTable('oauth_clients').addColumn('org_id', 'varchar(40)').execute();
  await db.schema.createIndex('oauth_clients_org').on('oauth_clients').column('org_id').execute();

  // One personal organization per account that owns an app (deleted apps included), and every app in it.
  await sql`insert into organizations (id, name, personal, created_at)
    select 'org_u' || cast(owner_uuid as varchar(32)), 'Personal', 1, min(created_at)
    from oauth_clients group by owner_uuid`.execute(db);
  await sql`insert into org_members (org_id, user_uuid, role, created_at)
    select 'org_u' || cast(owner_uuid as varchar(32)), owner_uuid, 'owner', min(created_at)
    from oauth_clients group by owner_uuid`.execute(db);
  await sql`update oauth_clients set org_id = 'org_u' || cast(owner_uuid as varchar(32))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('oauth_clients_org').execute();
  await db.schema.alterTable('oauth_clients').dropColumn('org_id').execute();
  await db.schema.dropTable('org_audit').execute();
  await db.schema.dropTable('org_invitations').execute();
  await db.schema.dropTable('org_members').execute();
  await db.schema.dropTable('organizations').execute();
}
