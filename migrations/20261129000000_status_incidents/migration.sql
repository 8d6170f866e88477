-- Incidents and maintenance on the status page (API.md section 17). Operators post incidents and
-- their updates and plan maintenance through the internal API; the background refresh opens an
-- automatic incident for a component down on three consecutive refreshes and resolves it when the
-- component is back. The partial unique index makes that exactly once across instances: at most
-- one open automatic incident per component. Streaks count consecutive failed refreshes per
-- component, whichever instance ran them.
CREATE TABLE "status_incidents" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "impact" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "components" TEXT[] NOT NULL,
    "automatic" BOOLEAN NOT NULL DEFAULT false,
    "automatic_component" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "status_incidents_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "status_incidents_created_at_idx" ON "status_incidents" ("created_at");
CREATE UNIQUE INDEX "status_incidents_open_automatic_key" ON "status_incidents" ("automatic_component") WHERE "resolved_at" IS NULL;

CREATE TABLE "status_incident_updates" (
    "id" TEXT NOT NULL,
    "incident_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "status_incident_updates_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "status_incident_updates_incident_id_at_idx" ON "status_incident_updates" ("incident_id", "at");
ALTER TABLE "status_incident_updates" ADD CONSTRAINT "status_incident_updates_incident_id_fkey"
    FOREIGN KEY ("incident_id") REFERENCES "status_incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "status_maintenances" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "components" TEXT[] NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "message" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "status_maintenances_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "status_maintenances_ends_at_idx" ON "status_maintenances" ("ends_at");

CREATE TABLE "status_component_streaks" (
    "component" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "status_component_streaks_pkey" PRIMARY KEY ("component")
);
