/** The part of fs-native-extensions (it ships no types) that data-lock.ts uses. */
declare module 'fs-native-extensions' {
  /** Takes an exclusive lock on the open file `fd` without waiting; false when another holds it. */
  export function tryLock(fd: number): boolean;
}
