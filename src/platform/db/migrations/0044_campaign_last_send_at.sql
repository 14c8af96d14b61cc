-- The latest time one of a campaign's emails waits for (a local time or a place in a spread): its
-- progress estimate never ends before it.
ALTER TABLE "campaigns" ADD COLUMN "last_send_at" timestamp (3) with time zone;
