-- Status history (API.md section 11): probe outcomes per component and UTC day, kept 90 days,
-- and per minute for the last 24 hours (the 24 h uptime). Each refresh adds one check per
-- component; the rows are counters, upserted by the instance that probed.
CREATE TABLE "status_history_days" (
    "component" TEXT NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "checks" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "status_history_days_pkey" PRIMARY KEY ("component","day")
);

CREATE TABLE "status_history_minutes" (
    "component" TEXT NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "checks" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "status_history_minutes_pkey" PRIMARY KEY ("component","minute")
);

CREATE INDEX "status_history_minutes_minute_idx" ON "status_history_minutes"("minute");
