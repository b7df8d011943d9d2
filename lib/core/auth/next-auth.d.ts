// The session and token carry the user's id and role (module augmentation for next-auth v4).
import type { Role } from "./roles";

declare module "next-auth" {
  interface User {
    role: Role;
  }
  interface Session {
    user: { id: string; email: string; role: Role };
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    role?: Role;
    /** When the user signed in (ms); sessions from before a password change or disable are void. */
    signedInAt?: number;
    /** This session's id; signing out records it as ended (lib/core/auth/sessions-store.ts). */
    sid?: string;
    /** How the session signed in: its lifetime depends on it (lib/core/auth/options.ts). */
    method?: "password" | "sso";
  }
}
