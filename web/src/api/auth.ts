import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Me, SignInMethods } from '../../../src/api.js';
import { api, isApiError } from './client.js';

export const meKey = ['me'] as const;
const setupKey = ['auth', 'setup'] as const;

export function useSetupStatus() {
  return useQuery({
    queryKey: setupKey,
    queryFn: ({ signal }) => api<{ required: boolean }>('GET', '/auth/setup', { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** How this instance signs people in: the single sign-on provider to offer, and whether passwords work. */
export function useSignInMethods() {
  return useQuery({
    queryKey: ['auth', 'methods'],
    queryFn: ({ signal }) => api<SignInMethods>('GET', '/auth/sso', { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The signed-in user, or null when nobody is signed in. */
export function useMe() {
  return useQuery({
    queryKey: meKey,
    queryFn: async ({ signal }) => {
      try {
        return await api<Me>('GET', '/users/@me', { signal });
      } catch (e) {
        if (isApiError(e, 401)) return null;
        throw e;
      }
    },
    staleTime: 5 * 60_000,
  });
}

export interface SetupInput {
  token: string;
  email: string;
  password: string;
}

export function useSetupOwner() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SetupInput) => api<Me>('POST', '/auth/setup', { body: input }),
    onSuccess: (user) => {
      queryClient.setQueryData(setupKey, { required: false });
      queryClient.setQueryData(meKey, user);
    },
  });
}

/** A right password of an account with two-factor sign-in: the code is asked next. */
export interface SecondFactorChallenge {
  secondFactorRequired: true;
}

export const isChallenge = (result: Me | SecondFactorChallenge): result is SecondFactorChallenge =>
  'secondFactorRequired' in result;

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; password: string }) =>
      api<Me | SecondFactorChallenge>('POST', '/auth/login', { body: input }),
    onSuccess: (result) => {
      if (!isChallenge(result)) queryClient.setQueryData(meKey, result);
    },
  });
}

/** The second step: a code of the authenticator app, or a recovery code. */
export function useSecondFactor() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { code: string } | { recoveryCode: string }) =>
      api<Me>('POST', '/auth/login/second-factor', { body: input }),
    onSuccess: (me) => queryClient.setQueryData(meKey, me),
  });
}

const SIGNED_OUT = 'postbox:signed-out';
/**
 * Whether this tab signed out: an "SSO only" sign-in page then waits for a click instead of going to
 * the provider, which would sign the person straight back in.
 */
export const signedOutHere = () => sessionStorage.getItem(SIGNED_OUT) === 'yes';
export const forgetSignOut = () => sessionStorage.removeItem(SIGNED_OUT);

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<void>('POST', '/auth/logout'),
    onSettled: () => {
      sessionStorage.setItem(SIGNED_OUT, 'yes');
      // Nobody is signed in now; what the previous user's pages loaded must not outlive them.
      queryClient.setQueryData(meKey, null);
      queryClient.removeQueries({
        predicate: (query) => query.queryKey[0] !== meKey[0] && query.queryKey !== setupKey,
      });
    },
  });
}
