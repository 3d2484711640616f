module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %c1 = arith.constant 1 : index
    cf.br ^bb1(%c0 : index)
  ^bb1(%0: index):  // 2 preds: ^bb0, ^bb5
    %1 = arith.cmpi slt, %0, %c256 : index
    cf.cond_br %1, ^bb2, ^bb6
  ^bb2:  // pred: ^bb1
    %c0_0 = arith.constant 0 : index
    %c256_1 = arith.constant 256 : index
    %c4 = arith.constant 4 : index
    cf.br ^bb3(%c0_0 : index)
  ^bb3(%2: index):  // 2 preds: ^bb2, ^bb4
    %3 = arith.cmpi slt, %2, %c256_1 : index
    cf.cond_br %3, ^bb4, ^bb5
  ^bb4:  // pred: ^bb3
    memref.store %cst, %alloc[%0, %2] : memref<256x256xf32>
    %c1_2 = arith.constant 1 : index
    %4 = arith.addi %2, %c1_2 : index
    memref.store %cst, %alloc[%0, %4] : memref<256x256xf32>
    %c2 = arith.constant 2 : index
    %5 = arith.addi %2, %c2 : index
    memref.store %cst, %alloc[%0, %5] : memref<256x256xf32>
    %c3 = arith.constant 3 : index
    %6 = arith.addi %2, %c3 : index
    memref.store %cst, %alloc[%0, %6] : memref<256x256xf32>
    %7 = arith.addi %2, %c4 : index
    cf.br ^bb3(%7 : index)
  ^bb5:  // pred: ^bb3
    %8 = arith.addi %0, %c1 : index
    cf.br ^bb1(%8 : index)
  ^bb6:  // pred: ^bb1
    %c0_3 = arith.constant 0 : index
    %c256_4 = arith.constant 256 : index
    %c1_5 = arith.constant 1 : index
    cf.br ^bb7(%c0_3 : index)
  ^bb7(%9: index):  // 2 preds: ^bb6, ^bb14
    %10 = arith.cmpi slt, %9, %c256_4 : index
    cf.cond_br %10, ^bb8, ^bb15
  ^bb8:  // pred: ^bb7
    %c0_6 = arith.constant 0 : index
    %c256_7 = arith.constant 256 : index
    %c1_8 = arith.constant 1 : index
    cf.br ^bb9(%c0_6 : index)
  ^bb9(%11: index):  // 2 preds: ^bb8, ^bb13
    %12 = arith.cmpi slt, %11, %c256_7 : index
    cf.cond_br %12, ^bb10, ^bb14
  ^bb10:  // pred: ^bb9
    %c0_9 = arith.constant 0 : index
    %c256_10 = arith.constant 256 : index
    %c4_11 = arith.constant 4 : index
    cf.br ^bb11(%c0_9 : index)
  ^bb11(%13: index):  // 2 preds: ^bb10, ^bb12
    %14 = arith.cmpi slt, %13, %c256_10 : index
    cf.cond_br %14, ^bb12, ^bb13
  ^bb12:  // pred: ^bb11
    %15 = memref.load %arg0[%9, %13] : memref<256x256xf32>
    %16 = memref.load %arg1[%13, %11] : memref<256x256xf32>
    %17 = memref.load %alloc[%9, %11] : memref<256x256xf32>
    %18 = arith.mulf %15, %16 : f32
    %19 = arith.addf %17, %18 : f32
    memref.store %19, %alloc[%9, %11] : memref<256x256xf32>
    %c1_12 = arith.constant 1 : index
    %20 = arith.addi %13, %c1_12 : index
    %21 = memref.load %arg0[%9, %20] : memref<256x256xf32>
    %22 = memref.load %arg1[%20, %11] : memref<256x256xf32>
    %23 = memref.load %alloc[%9, %11] : memref<256x256xf32>
    %24 = arith.mulf %21, %22 : f32
    %25 = arith.addf %23, %24 : f32
    memref.store %25, %alloc[%9, %11] : memref<256x256xf32>
    %c2_13 = arith.constant 2 : index
    %26 = arith.addi %13, %c2_13 : index
    %27 = memref.load %arg0[%9, %26] : memref<256x256xf32>
    %28 = memref.load %arg1[%26, %11] : memref<256x256xf32>
    %29 = memref.load %alloc[%9, %11] : memref<256x256xf32>
    %30 = arith.mulf %27, %28 : f32
    %31 = arith.addf %29, %30 : f32
    memref.store %31, %alloc[%9, %11] : memref<256x256xf32>
    %c3_14 = arith.constant 3 : index
    %32 = arith.addi %13, %c3_14 : index
    %33 = memref.load %arg0[%9, %32] : memref<256x256xf32>
    %34 = memref.load %arg1[%32, %11] : memref<256x256xf32>
    %35 = memref.load %alloc[%9, %11] : memref<256x256xf32>
    %36 = arith.mulf %33, %34 : f32
    %37 = arith.addf %35, %36 : f32
    memref.store %37, %alloc[%9, %11] : memref<256x256xf32>
    %38 = arith.addi %13, %c4_11 : index
    cf.br ^bb11(%38 : index)
  ^bb13:  // pred: ^bb11
    %39 = arith.addi %11, %c1_8 : index
    cf.br ^bb9(%39 : index)
  ^bb14:  // pred: ^bb9
    %40 = arith.addi %9, %c1_5 : index
    cf.br ^bb7(%40 : index)
  ^bb15:  // pred: ^bb7
    %c0_15 = arith.constant 0 : index
    %c256_16 = arith.constant 256 : index
    %c1_17 = arith.constant 1 : index
    cf.br ^bb16(%c0_15 : index)
  ^bb16(%41: index):  // 2 preds: ^bb15, ^bb20
    %42 = arith.cmpi slt, %41, %c256_16 : index
    cf.cond_br %42, ^bb17, ^bb21
  ^bb17:  // pred: ^bb16
    %c0_18 = arith.constant 0 : index
    %c256_19 = arith.constant 256 : index
    %c4_20 = arith.constant 4 : index
    cf.br ^bb18(%c0_18 : index)
  ^bb18(%43: index):  // 2 preds: ^bb17, ^bb19
    %44 = arith.cmpi slt, %43, %c256_19 : index
    cf.cond_br %44, ^bb19, ^bb20
  ^bb19:  // pred: ^bb18
    %45 = memref.load %alloc[%41, %43] : memref<256x256xf32>
    %46 = memref.load %arg2[%43] : memref<256xf32>
    %47 = arith.addf %45, %46 : f32
    %48 = arith.maximumf %47, %cst : f32
    memref.store %48, %arg3[%41, %43] : memref<256x256xf32>
    %c1_21 = arith.constant 1 : index
    %49 = arith.addi %43, %c1_21 : index
    %50 = memref.load %alloc[%41, %49] : memref<256x256xf32>
    %51 = memref.load %arg2[%49] : memref<256xf32>
    %52 = arith.addf %50, %51 : f32
    %53 = arith.maximumf %52, %cst : f32
    memref.store %53, %arg3[%41, %49] : memref<256x256xf32>
    %c2_22 = arith.constant 2 : index
    %54 = arith.addi %43, %c2_22 : index
    %55 = memref.load %alloc[%41, %54] : memref<256x256xf32>
    %56 = memref.load %arg2[%54] : memref<256xf32>
    %57 = arith.addf %55, %56 : f32
    %58 = arith.maximumf %57, %cst : f32
    memref.store %58, %arg3[%41, %54] : memref<256x256xf32>
    %c3_23 = arith.constant 3 : index
    %59 = arith.addi %43, %c3_23 : index
    %60 = memref.load %alloc[%41, %59] : memref<256x256xf32>
    %61 = memref.load %arg2[%59] : memref<256xf32>
    %62 = arith.addf %60, %61 : f32
    %63 = arith.maximumf %62, %cst : f32
    memref.store %63, %arg3[%41, %59] : memref<256x256xf32>
    %64 = arith.addi %43, %c4_20 : index
    cf.br ^bb18(%64 : index)
  ^bb20:  // pred: ^bb18
    %65 = arith.addi %41, %c1_17 : index
    cf.br ^bb16(%65 : index)
  ^bb21:  // pred: ^bb16
    memref.dealloc %alloc : memref<256x256xf32>
    return
  }
}
