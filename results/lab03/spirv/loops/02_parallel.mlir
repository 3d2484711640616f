module {
  func.func @matmul_bias_relu(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
    %c0_0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c8_1 = arith.constant 8 : index
    %0 = arith.muli %c1, %c8 : index
    %1 = arith.muli %c1, %c8_1 : index
    scf.parallel (%arg4, %arg5) = (%c0, %c0) to (%c64, %c64) step (%0, %1) {
      scf.parallel (%arg6, %arg7) = (%c0_0, %c0_0) to (%0, %1) step (%c1, %c1) {
        %4 = arith.addi %arg6, %arg4 : index
        %5 = arith.addi %arg7, %arg5 : index
        memref.store %cst, %alloc[%4, %5] : memref<64x64xf32>
        scf.for %arg8 = %c0 to %c64 step %c1 {
          %6 = memref.load %arg0[%4, %arg8] : memref<64x64xf32>
          %7 = memref.load %arg1[%arg8, %5] : memref<64x64xf32>
          %8 = memref.load %alloc[%4, %5] : memref<64x64xf32>
          %9 = arith.mulf %6, %7 : f32
          %10 = arith.addf %8, %9 : f32
          memref.store %10, %alloc[%4, %5] : memref<64x64xf32>
        }
        scf.reduce 
      }
      scf.reduce 
    }
    %c0_2 = arith.constant 0 : index
    %c8_3 = arith.constant 8 : index
    %c8_4 = arith.constant 8 : index
    %2 = arith.muli %c1, %c8_3 : index
    %3 = arith.muli %c1, %c8_4 : index
    scf.parallel (%arg4, %arg5) = (%c0, %c0) to (%c64, %c64) step (%2, %3) {
      scf.parallel (%arg6, %arg7) = (%c0_2, %c0_2) to (%2, %3) step (%c1, %c1) {
        %4 = arith.addi %arg6, %arg4 : index
        %5 = arith.addi %arg7, %arg5 : index
        %6 = memref.load %alloc[%4, %5] : memref<64x64xf32>
        %7 = memref.load %arg2[%5] : memref<64xf32>
        %8 = arith.addf %6, %7 : f32
        %9 = arith.maximumf %8, %cst : f32
        memref.store %9, %arg3[%4, %5] : memref<64x64xf32>
        scf.reduce 
      }
      scf.reduce 
    }
    memref.dealloc %alloc : memref<64x64xf32>
    return
  }
}
